// GET /metrics in the Prometheus text format, and the per-request duration observation.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { PrometheusMetrics } from '../../adapters/metrics/prometheus.ts';

export function metricsRoutes(metrics: PrometheusMetrics): FastifyPluginAsync {
  return async (app) => {
    app.get('/metrics', { schema: { hide: true } }, async (_request, reply) =>
      reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
    );
  };
}

/** Added on the root instance, outside any plugin, so every route and every 404 is timed. */
export function observeRequests(app: FastifyInstance, metrics: PrometheusMetrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
