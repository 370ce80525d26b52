// /metrics on a listener of its own (METRICS_PORT, on METRICS_HOST: loopback by default), so the
// API port can face the internet while Prometheus scrapes from inside. Same route, same token rule.
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { PrometheusMetrics } from '../adapters/metrics/prometheus.ts';
import { metricsRoutes } from './routes/metrics.ts';

export interface MetricsListener {
  url: string;
  close(): Promise<void>;
}

export async function listenForMetrics(metrics: PrometheusMetrics, where: { host: string; port: number; token: string | null }, logger: Logger): Promise<MetricsListener> {
  const app = Fastify({ loggerInstance: logger.child({ component: 'metrics' }), disableRequestLogging: true }) as unknown as FastifyInstance;
  await app.register(metricsRoutes(metrics, where.token));
  app.setNotFoundHandler((_request, reply) => reply.status(404).send({ detail: 'Not Found' }));
  const url = await app.listen({ host: where.host, port: where.port, listenTextResolver: (address) => `metrics listening at ${address}/metrics` });
  return { url, close: () => app.close() };
}
