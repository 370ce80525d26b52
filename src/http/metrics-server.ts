// /metrics on a listener of its own (METRICS_PORT, on METRICS_HOST: loopback by default), so the
// API port can face the internet while Prometheus scrapes from inside. Same route, same token rule,
// and the API's deadlines (a request whose headers or body stall is answered 408 and closed);
// a request that announces a body is refused at once, since a scrape has none.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { PrometheusMetrics } from '../adapters/metrics/prometheus.ts';
import { createFastify } from './fastify.ts';
import { metricsRoutes, type MetricsAccess } from './routes/metrics.ts';

async function refuseBodies(request: FastifyRequest, reply: FastifyReply) {
  const announced =
    request.headers['transfer-encoding'] !== undefined ||
    Number(request.headers['content-length'] ?? 0) > 0;
  if (announced)
    return reply
      .status(413)
      .header('connection', 'close')
      .send({ detail: 'Request body too large' });
}

export interface MetricsListener {
  url: string;
  close(): Promise<void>;
}

/** Where the listener listens, who may read /metrics there, and the API's request deadline. */
export interface MetricsListenerOptions extends MetricsAccess {
  host: string;
  port: number;
  requestTimeoutMs: number;
}

export async function listenForMetrics(
  metrics: PrometheusMetrics,
  options: MetricsListenerOptions,
  logger: Logger,
): Promise<MetricsListener> {
  // Scrapes are not logged line by line (warn and above only): the API's access log stays readable.
  const app = createFastify({
    logger: logger.child({ component: 'metrics' }, { level: 'warn' }),
    requestTimeoutMs: options.requestTimeoutMs,
  });
  app.addHook('onRequest', refuseBodies);
  await app.register(metricsRoutes(metrics, options));
  const url = await app.listen({
    host: options.host,
    port: options.port,
    listenTextResolver: (address) => `metrics listening at ${address}/metrics`,
  });
  return { url, close: () => app.close() };
}
