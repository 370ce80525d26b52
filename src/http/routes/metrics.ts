// GET /metrics in the Prometheus text format (behind a bearer token when one is configured), and
// the per-request duration observation.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { PrometheusMetrics } from '../../adapters/metrics/prometheus.ts';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

export function metricsRoutes(metrics: PrometheusMetrics, token: string | null): FastifyPluginAsync {
  const expected = token === null ? null : digest(`Bearer ${token}`);
  return async (app) => {
    app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
      if (expected !== null && !timingSafeEqual(digest(request.headers.authorization ?? ''), expected)) {
        return reply.status(401).header('www-authenticate', 'Bearer').send({ detail: 'Not authenticated' });
      }
      return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    });
  };
}

/** Added on the root instance, outside any plugin, so every route and every 404 is timed. */
export function observeRequests(app: FastifyInstance, metrics: PrometheusMetrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
