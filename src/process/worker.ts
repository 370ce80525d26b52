// One serving process: compose, build the app, listen, and close gracefully on SIGTERM/SIGINT:
// stop accepting (new requests get 503, /readyz included), let in-flight requests finish (a
// webhook transaction is never cut halfway), close the database, exit 0, all within a bound.
import cluster from 'node:cluster';
import closeWithGrace from 'close-with-grace';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { buildApp } from '../app.ts';
import { composeService, type Composition } from '../composition.ts';
import { isLoopback, type Config } from '../config.ts';
import { listenForMetrics, type MetricsListener } from '../http/metrics-server.ts';
import { localOrigin } from './local-origin.ts';
import { banner } from './banner.ts';
import { listenFailure } from './listen-failure.ts';
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
  // Started once the app listens, closed with it.
  let app: FastifyInstance | undefined;
  let metricsListener: MetricsListener | null = null;
  let forgetService: (() => Promise<void>) | null = null;
  // What started is stopped before a failed start exits: the embedded database is a process of
  // its own, which would otherwise outlive this one.
  const failClosing = async (error: unknown): Promise<never> => {
    await Promise.allSettled([app?.close(), metricsListener?.close()]);
    await composition.close().catch(() => {});
    return fail(error);
  };
  app = await buildApp(composition, { logger: composition.logger }).catch(failClosing);
  if (composition.migrationsApplied.length > 0)
    app.log.info({ migrations: composition.migrationsApplied }, 'database migrated');
  closeOnStopSignals(config, app, async () => {
    await Promise.all([app.close(), metricsListener?.close()]);
    await forgetService?.();
    await composition.close();
  });

  const address = await app
    .listen({ host: config.host, port: config.port })
    .catch((error) => failClosing(listenFailure({ port: 'PORT', host: 'HOST' }, error)));
  composition.setServiceUrl(address);
  composition.jobs.start();
  metricsListener = await serveMetricsApart(config, composition, app.log).catch((error) =>
    failClosing(listenFailure({ port: 'METRICS_PORT', host: 'METRICS_HOST' }, error)),
  );
  const database = describeDatabase(config);
  app.log.info(`database: ${database}`);
  if (composition.devIssuer === null && composition.simulatorUrl === null) return;
  forgetService = await announceDevelopmentService(config, composition, {
    address,
    database,
    log: app.log,
  }).catch(failClosing);
}

/**
 * SIGTERM/SIGINT are handled here rather than by close-with-grace, which would exit at once on
 * the duplicate; it still bounds the close and handles uncaught errors.
 */
function closeOnStopSignals(
  config: Readonly<Config>,
  app: FastifyInstance,
  close: () => Promise<void>,
): void {
  const grace = closeWithGrace(
    { delay: shutdownBoundMs(config), logger: app.log, skip: ['SIGTERM', 'SIGINT'] },
    async ({ err }) => {
      if (err) app.log.error({ err }, 'closing after an uncaught error');
      await close();
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
}

/** /metrics on a listener of its own when METRICS_PORT asks for one; else says why it is off, if it is. */
async function serveMetricsApart(
  config: Readonly<Config>,
  composition: Composition,
  log: FastifyBaseLogger,
): Promise<MetricsListener | null> {
  const { metrics } = config;
  const { scrape } = composition.services;
  if (metrics.port === null || scrape === null) {
    if (metrics.off !== null)
      log.info(
        `metrics off: ${metrics.off}; set METRICS_PORT (a listener of its own) or METRICS_TOKEN to serve /metrics`,
      );
    return null;
  }
  const options = {
    ...metrics,
    port: metrics.port,
    requestTimeoutMs: config.requestTimeoutMs,
    localNames: isLoopback(metrics.host) ? config.localNames : null,
  };
  return listenForMetrics(scrape, options, composition.logger);
}

function describeDatabase({ database }: Readonly<Config>): string {
  if (database.kind === 'postgres') return 'PostgreSQL';
  if (database.kind === 'embedded') return `embedded PostgreSQL in ${database.dataDir}`;
  return 'PGlite, in memory';
}

/**
 * Records where this development service is, for the commands run beside it (token, the operator
 * CLI), and tells the person who started it; resolves to what removes the record.
 */
async function announceDevelopmentService(
  config: Readonly<Config>,
  { devIssuer, simulatorUrl }: Composition,
  { address, database, log }: { address: string; database: string; log: FastifyBaseLogger },
): Promise<() => Promise<void>> {
  const url = localOrigin(config.host, Number(new URL(address).port));
  const forget = await recordService(config.dataDir, { url, issuer: devIssuer, simulatorUrl });
  if (devIssuer !== null)
    log.info(
      'development identity provider: get a token with  npm run token -- --sub alice --email alice@example.com',
    );
  if (config.nodeEnv === 'development' && (cluster.worker?.id ?? 1) === 1)
    process.stderr.write(banner({ url, simulatorUrl, devIdentity: devIssuer !== null, database }));
  return forget;
}
