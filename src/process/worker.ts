// One serving process: compose, build the app, listen, and close gracefully on SIGTERM/SIGINT:
// stop accepting (new requests get 503, /readyz included), let in-flight requests finish (a
// webhook transaction is never cut halfway), close the database, exit 0, all within a bound.
import cluster from 'node:cluster';
import closeWithGrace from 'close-with-grace';
import { buildApp } from '../app.ts';
import { compose } from '../composition.ts';
import type { Config } from '../config.ts';
import { listenForMetrics, type MetricsListener } from '../http/metrics-server.ts';

// Long enough for a request whose body is still arriving to finish or time out (HTTP_REQUEST_TIMEOUT_MS).
const shutdownBoundMs = (config: Readonly<Config>): number => Math.max(10_000, config.requestTimeoutMs + 5_000);

export async function runWorker(config: Readonly<Config>, fail: (error: unknown) => never): Promise<void> {
  const composition = await compose(config, { migrate: cluster.isPrimary }).catch(fail);
  const app = await buildApp(composition.services, { logger: composition.logger });
  if (composition.migrationsApplied.length > 0) app.log.info({ migrations: composition.migrationsApplied }, 'database migrated');

  let metricsListener: MetricsListener | null = null;
  closeWithGrace({ delay: shutdownBoundMs(config), logger: app.log }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'closing after an uncaught error');
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    await Promise.all([app.close(), metricsListener?.close()]);
    await composition.close();
  });

  const address = await app.listen({ host: config.host, port: config.port }).catch(fail);
  composition.setServiceUrl(address);
  const { metrics } = config;
  if (metrics.port !== null) metricsListener = await listenForMetrics(composition.services.metrics, { ...metrics, port: metrics.port }, composition.logger).catch(fail);
  else if (!metrics.apiPort) app.log.info('metrics off: HOST is not loopback; set METRICS_PORT (a listener of its own) or METRICS_TOKEN to serve /metrics');
  app.log.info(`database: ${config.database.kind === 'postgres' ? 'PostgreSQL' : (config.database.dataDir ?? 'embedded, in memory')}`);
  if (config.identity.kind === 'dev') {
    app.log.info('development identity provider: get a token with  npm run token -- --sub alice --email alice@example.com');
  }
}
