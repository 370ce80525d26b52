// GET /metrics in the Prometheus text format (behind a bearer token when one is configured), and
// the per-request duration observation. The token is checked when the request line and headers
// have arrived, before any body: a scrape has none, and a stranger's is never waited for.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { PrometheusMetrics } from '../../adapters/metrics/prometheus.ts';
import { onlyLocalHosts } from '../local-hosts.ts';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

export interface MetricsAccess {
  /** Bearer token /metrics asks for; null: none. */
  token: string | null;
  /**
   * Without a token on a loopback listener: the names besides IP addresses and localhost that may
   * ask (local-hosts.ts); null where the listener was opened to the network on purpose.
   */
  localNames: readonly string[] | null;
}

/** Who may read /metrics: the bearer of the token when one is set, else (on loopback) local Hosts only. */
function accessChecks({ token, localNames }: MetricsAccess) {
  if (token === null) return localNames === null ? [] : [onlyLocalHosts(localNames)];
  const expected = digest(`Bearer ${token}`);
  return [
    async (request: FastifyRequest, reply: FastifyReply) => {
      if (!timingSafeEqual(digest(request.headers.authorization ?? ''), expected)) {
        return reply
          .status(401)
          .header('www-authenticate', 'Bearer')
          .header('connection', 'close')
          .send({ detail: 'Not authenticated' });
      }
    },
  ];
}

export function metricsRoutes(
  metrics: PrometheusMetrics,
  access: MetricsAccess,
): FastifyPluginAsync {
  return async (app) => {
    app.get(
      '/metrics',
      { schema: { hide: true }, onRequest: accessChecks(access) },
      async (_request, reply) =>
        reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
    );
  };
}

/** Added on the root instance, outside any plugin, so every route and every 404 is timed. */
export function observeRequests(app: FastifyInstance, metrics: PrometheusMetrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest(
      request.routeOptions.url ?? 'unmatched',
      request.method,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
}
