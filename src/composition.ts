// The composition root: the only place that chooses implementations (embedded PostgreSQL,
// PostgreSQL or PGlite in memory, development issuer or real OIDC, simulator or Stripe) and
// constructs adapters. Each entry point asks it for its parts: the API worker (composeService), the
// cluster primary (composeDatabaseOwner), every operator command (composeOperator).
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { AppParts } from './app.ts';
import type { Config } from './config.ts';
import type { Database } from './adapters/database/sql-client.ts';
import { UNREAD_METRICS } from './adapters/metrics/unread.ts';
import { flushTraces, otelTracing } from './adapters/tracing/otel.ts';
import type { PackPrices } from './domain/credits/pack-prices.ts';
import { PortalConfigurationId } from './domain/billing/portal-configuration.ts';
import type { JobLeases } from './domain/ports/job-leases.ts';
import type { PaymentsProvider } from './domain/ports/payments-provider.ts';
import type { Store } from './domain/ports/store.ts';
import type { WebhookService } from './domain/webhooks/webhook-service.ts';
import { createLogger } from './logger.ts';
import {
  databaseAdapters,
  openDatabaseAs,
  outboundEvents,
  type OpenedDatabase,
} from './composition/database.ts';
import { backgroundJobs, type BackgroundJobs } from './composition/background-jobs.ts';
import { composeAppEvents, type AppEvents } from './composition/events.ts';
import { composeIdentity } from './composition/identity.ts';
import { createOutbox } from './adapters/database/outbox.ts';
import { FREE_TIER } from './domain/billing/tier.ts';
import type { EventPolicy } from './domain/events/subject-changes.ts';
import type { Outbox } from './domain/ports/outbox.ts';
import {
  paymentsProvider,
  runningSimulatorUrl,
  startSimulatorInService,
  type SimulatorInService,
} from './composition/payments.ts';
import {
  httpSettings,
  instanceName,
  packPrices,
  routeServices,
  type ServiceAdapters,
  webhookService,
} from './composition/services.ts';

export function tierPolicy(config: Config): EventPolicy {
  // A price's tier is its tier whatever its interval.
  const tierByPrice = new Map(config.catalog.map(({ tier, price }) => [price, tier]));
  const intervalByPrice = new Map(config.catalog.map(({ interval, price }) => [price, interval]));
  return { tierByPrice, intervalByPrice, graceDays: config.graceDays };
}

/** The service: what buildApp serves, and what the process around it starts and closes. */
export interface Composition extends AppParts {
  db: Database;
  store: Store;
  payments: PaymentsProvider;
  logger: Logger;
  /** How changes are told to the application (the prices' tiers and intervals, the grace days). */
  policy: EventPolicy;
  migrationsApplied: string[];
  /** The simulator's base URL when it runs embedded. */
  simulatorUrl: string | null;
  /** The development identity provider's issuer when it runs embedded. */
  devIssuer: string | null;
  /** Tells the embedded simulator where this service listens, for webhook deliveries. */
  setServiceUrl(url: string): void;
  /** The background jobs (composition/background-jobs.ts): started once the service listens. */
  jobs: BackgroundJobs;
  close(): Promise<void>;
}

/**
 * The whole service. It owns the embedded database (a second service on the same DATA_DIR is
 * refused), except a cluster worker (`worker: true`), which reaches its primary's and does not
 * migrate: the primary has.
 */
export async function composeService(
  config: Config,
  { worker = false } = {},
): Promise<Composition> {
  const logger = createLogger(config.logLevel, { batched: true });
  const database = await openDatabaseAs(config, worker ? 'worker' : 'owner', logger);
  try {
    return await composeServiceOn(config, database, logger);
  } catch (error) {
    await database.server.stop();
    throw error;
  }
}

/** Prometheus's registry where /metrics is served; loaded only then (prom-client and its timers). */
async function scrapedMetrics(config: Config, db: Database) {
  if (config.metrics.off !== null) return null;
  const { createPrometheusMetrics } = await import('./adapters/metrics/prometheus.ts');
  return createPrometheusMetrics(() => db.poolStats());
}

async function serviceAdapters(
  config: Config,
  db: Database,
  { logger, simulatorUrl }: { logger: Logger; simulatorUrl: string | null },
): Promise<ServiceAdapters> {
  const scrape = await scrapedMetrics(config, db);
  return {
    db,
    ...databaseAdapters(db, outboundEvents(config)),
    metrics: scrape ?? UNREAD_METRICS,
    scrape,
    payments: paymentsProvider(config, logger, simulatorUrl),
    logger,
    // OpenTelemetry's API: a no-op unless src/otel.ts started the SDK (an OTLP endpoint is set).
    tracing: otelTracing,
  };
}

/** The service's own portal configuration, set up now where the provider answers. */
async function startPortalConfiguration(
  config: Config,
  { payments, leases, logger }: ServiceAdapters,
): Promise<PortalConfigurationId> {
  const portal = new PortalConfigurationId(
    { payments, leases, holder: instanceName(), log: logger },
    config.catalog,
  );
  await portal.startUp();
  return portal;
}

/** The packs' prices, checked against the provider now where it answers. */
async function startPackPrices(config: Config, adapters: ServiceAdapters): Promise<PackPrices> {
  const prices = packPrices(config, adapters);
  await prices.startUp();
  return prices;
}

interface Started {
  simulator: SimulatorInService | null;
  events: AppEvents | null;
  jobs: BackgroundJobs;
  database: OpenedDatabase;
}

/** Where the service listens, told to what calls it back; what it started, closed in order. */
const lifecycle = ({ simulator, events, jobs, database }: Started) => ({
  setServiceUrl(url: string) {
    simulator?.setServiceUrl(url);
    events?.setServiceUrl(url);
  },
  async close() {
    await jobs.stop();
    await simulator?.close();
    await database.db.close();
    await database.server.stop();
    await flushTraces();
  },
});

async function composeServiceOn(
  config: Config,
  database: OpenedDatabase,
  logger: Logger,
): Promise<Composition> {
  const identity = await composeIdentity(config, logger);
  const simulator = await startSimulatorInService(config, database.server.reach, logger);
  const policy = tierPolicy(config);
  const events = await composeAppEvents(config);
  const simulatorUrl = simulator?.url ?? null;
  const adapters = await serviceAdapters(config, database.db, { logger, simulatorUrl });
  const services = routeServices(config, adapters, {
    verifier: identity.verifier,
    policy,
    portalConfiguration: await startPortalConfiguration(config, adapters),
    prices: await startPackPrices(config, adapters),
  });
  const { db, store, payments } = adapters;
  const jobs = backgroundJobs(config, adapters, { events, policy });
  return {
    services,
    http: httpSettings(config, adapters),
    devRoutes: [
      ...identity.devRoutes,
      ...(simulator ? [simulator.developmentPages(services, { store, policy })] : []),
      ...(events?.receiver ? [events.receiver] : []),
    ],
    db,
    store,
    payments,
    logger,
    policy,
    migrationsApplied: database.applied,
    simulatorUrl,
    devIssuer: identity.devIssuer,
    jobs,
    ...lifecycle({ simulator, events, jobs, database }),
  };
}

/** The cluster primary: it serves the embedded database for its workers and migrates it once. */
export interface DatabaseOwner {
  logger: Logger;
  migrationsApplied: string[];
  /** Stops the embedded database and gives up DATA_DIR. */
  stop(): Promise<void>;
}

export async function composeDatabaseOwner(config: Config): Promise<DatabaseOwner> {
  const logger = createLogger(config.logLevel);
  const { db, applied, server } = await openDatabaseAs(config, 'owner', logger);
  await db.close();
  return {
    logger,
    migrationsApplied: applied,
    stop: () => server.stop(),
  };
}

/** What an operator command works with: no HTTP server, simulator or identity provider. */
export interface OperatorComposition {
  db: Database;
  store: Store;
  /** The background jobs' leases, shared with the running services (one reconciliation at a time). */
  leases: JobLeases;
  /** This command's name in those leases: `cli`, the host and the pid. */
  holder: string;
  logger: Logger;
  policy: EventPolicy;
  /** The outbound events, to list and resend. */
  outbox: Outbox;
  migrationsApplied: string[];
  /** The payment provider: Stripe, or the simulator inside the running service (refused when none runs). */
  payments(): Promise<PaymentsProvider>;
  webhooks(): Promise<WebhookService>;
  close(): Promise<void>;
}

/**
 * For an operator command, on the running service's data: the embedded database of the service
 * that owns DATA_DIR while one runs (else this process serves it for the command's length), and,
 * without PAYMENTS_API_KEY, the service's payment simulator over HTTP.
 */
export async function composeOperator(config: Config): Promise<OperatorComposition> {
  const logger = createLogger(config.logLevel);
  const { db, applied, server } = await openDatabaseAs(config, 'operator', logger);
  const policy = tierPolicy(config);
  const { store, ledger, leases } = databaseAdapters(db, outboundEvents(config));
  const payments = async () => paymentsProvider(config, logger, await runningSimulatorUrl(config));
  return {
    db,
    store,
    leases,
    holder: `cli/${hostname()}/${process.pid}`,
    logger,
    policy,
    outbox: createOutbox(db, FREE_TIER),
    migrationsApplied: applied,
    payments,
    async webhooks() {
      const parts = { ledger, store, payments: await payments(), metrics: UNREAD_METRICS, logger };
      return webhookService(config, parts, policy);
    },
    async close() {
      await db.close();
      await server.stop();
    },
  };
}
