// One serving process: compose, build the app, listen, and close gracefully on SIGTERM/SIGINT:
// stop accepting (new requests get 503, /readyz included), let in-flight requests finish (a
// webhook transaction is never cut halfway), close the database, exit 0, all within a bound.
import cluster from 'node:cluster';
import closeWithGrace from 'close-with-grace';
import { buildApp } from '../app.ts';
import { composeService } from '../composition.ts';
import { isLoopback, type Config } from '../config.ts';
import { listenForMetrics, type MetricsListener } from '../http/metrics-server.ts';
import { localOrigin } from '../local-origin.ts';
import { banner } from './banner.ts';
import { recordService } from './service-record.ts';

// Long enough for a request whose body is still arriving to finish or time out (HTTP_REQUEST_TIMEOUT_MS).
const shutdownBoundMs = (config: Readonly<Config>): number =>
  Math.max(10_000, config.requestTimeoutMs + 5_000);
// Ctrl-C under `npm start` arrives twice at once: from the terminal and forwarded by npm. A repeat
// within this window is the same request to stop; a later one means stop now.
const SAME_SIGNAL_MS = 1_000;

export async function runWorker(
  config: Readonly<Config>,
  fail: (error: unknown) => never,
): Promise<void> {
  const composition = await composeService(config, { worker: cluster.isWorker }).catch(fail);
  const app = await buildApp(composition, { logger: composition.logger });
  if (composition.migrationsApplied.length > 0)
    app.log.info({ migrations: composition.migrationsApplied }, 'database migrated');

  // SIGTERM/SIGINT are handled here rather than by close-with-grace, which would exit at once on
  // the duplicate; it still bounds the close and handles uncaught errors.
  let metricsListener: MetricsListener | null = null;
  let forgetService: (() => Promise<void>) | null = null;
  const grace = closeWithGrace(
    { delay: shutdownBoundMs(config), logger: app.log, skip: ['SIGTERM', 'SIGINT'] },
    async ({ err }) => {
      if (err) app.log.error({ err }, 'closing after an uncaught error');
      await Promise.all([app.close(), metricsListener?.close()]);
      await forgetService?.();
      await composition.close();
    },
  );
  let stoppingSince: number | null = null;
  const onStopSignal = (signal: NodeJS.Signals) => {
    if (stoppingSince === null) {
      stoppingSince = Date.now();
      app.log.info({ signal }, 'shutting down: finishing in-flight requests');
      void grace.close();
    } else if (Date.now() - stoppingSince > SAME_SIGNAL_MS) {
      app.log.error(`second ${signal}, exiting`);
      process.exit(1);
    }
  };
  process.on('SIGTERM', onStopSignal);
  process.on('SIGINT', onStopSignal);

  const address = await app.listen({ host: config.host, port: config.port }).catch(fail);
  composition.setServiceUrl(address);
  composition.jobs.start();
  const { metrics, database } = config;
  if (metrics.port !== null) {
    const where = {
      ...metrics,
      port: metrics.port,
      requestTimeoutMs: config.requestTimeoutMs,
      localNames: isLoopback(metrics.host) ? config.localNames : null,
    };
    metricsListener = await listenForMetrics(
      composition.services.metrics,
      where,
      composition.logger,
    ).catch(fail);
  } else if (metrics.off !== null)
    app.log.info(
      `metrics off: ${metrics.off}; set METRICS_PORT (a listener of its own) or METRICS_TOKEN to serve /metrics`,
    );
  const databaseText =
    database.kind === 'postgres'
      ? 'PostgreSQL'
      : database.kind === 'embedded'
        ? `embedded PostgreSQL in ${database.dataDir}`
        : 'PGlite, in memory';
  app.log.info(`database: ${databaseText}`);
  const { devIssuer, simulatorUrl } = composition;
  if (devIssuer === null && simulatorUrl === null) return;
  // The commands run beside a development service (token, the operator CLI) read where it is.
  const url = localOrigin(config.host, Number(new URL(address).port));
  forgetService = await recordService(config.dataDir, {
    url,
    issuer: devIssuer,
    simulatorUrl,
  }).catch(fail);
  if (devIssuer !== null)
    app.log.info(
      'development identity provider: get a token with  npm run token -- --sub alice --email alice@example.com',
    );
  if (config.nodeEnv === 'development' && (cluster.worker?.id ?? 1) === 1) {
    process.stderr.write(
      banner({ url, simulatorUrl, devIdentity: devIssuer !== null, database: databaseText }),
    );
  }
}
