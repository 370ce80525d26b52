// The composition root: the only place that chooses implementations (embedded PostgreSQL, PostgreSQL
// or PGlite in memory, development issuer or real OIDC, simulator or Stripe) and wires them into the
// services. What an operator command needs is composed in operator-composition.ts.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyPluginAsync } from 'fastify';
import type { Logger } from 'pino';
import type { Services } from './app.ts';
import type { Config } from './config.ts';
import { pendingMigrations } from './adapters/database/migrate.ts';
import { createEventLedger } from './adapters/database/event-ledger.ts';
import { createJobLeases } from './adapters/database/job-leases.ts';
import { createRateLimitCounts } from './adapters/database/rate-limit-counts.ts';
import {
  openDatabase,
  openMigratedDatabase,
  reachDatabase,
  serveDatabase,
  type DatabaseServer,
} from './adapters/database/open.ts';
import { createStore } from './adapters/database/store.ts';
import type { Database } from './adapters/database/sql-client.ts';
import type { ReachableDatabaseConfig } from './config.ts';
import { createCachedVerifier } from './adapters/identity/cached-verifier.ts';
import { createJwtVerifier } from './adapters/identity/jwt-verifier.ts';
import { createPrometheusMetrics } from './adapters/metrics/prometheus.ts';
import { connectOidcIssuer } from './adapters/identity/oidc-issuer.ts';
import { createStripeClient } from './adapters/payments/stripe-client.ts';
import { createStripeWebhookVerifier } from './adapters/payments/stripe-events.ts';
import { withSharedReads } from './adapters/payments/shared-reads.ts';
import { createStripePayments } from './adapters/payments/stripe-payments.ts';
import { devIssuerUrl, loadOrCreateSigningKey, localKeys } from './dev/identity-provider.ts';
import { devIdentityProviderRoutes } from './dev/identity-provider-routes.ts';
import { CheckoutService } from './domain/billing/checkout-service.ts';
import { PortalService } from './domain/billing/portal-service.ts';
import { SubscriptionSummaryService } from './domain/billing/subscription-summary.ts';
import type { TierPolicy } from './domain/billing/tier.ts';
import type { TokenVerifier } from './domain/ports/token-verifier.ts';
import { scheduledJobs, type ScheduledJobs } from './domain/schedule/jobs.ts';
import { UserService } from './domain/users/user-service.ts';
import { WebhookService } from './domain/webhooks/webhook-service.ts';
import { createLogger } from './logger.ts';

export interface Composition {
  services: Services;
  db: Database;
  logger: Logger;
  migrationsApplied: string[];
  /** The simulator's base URL when it runs embedded. */
  simulatorUrl: string | null;
  /** The development identity provider's issuer when it runs embedded. */
  devIssuer: string | null;
  /** Tells the embedded simulator where this service listens, for webhook deliveries. */
  setServiceUrl(url: string): void;
  /** The background jobs (reconciliation, retention): started once the service listens. */
  jobs: ScheduledJobs;
  close(): Promise<void>;
}

interface Identity {
  verifier: TokenVerifier;
  devIssuer: string | null;
  devRoutes: FastifyPluginAsync[];
}

async function composeIdentity(config: Config, logger: Logger): Promise<Identity> {
  const { identity } = config;
  if (identity.kind === 'oidc') {
    const onFetchError = (error: Error) =>
      logger.warn(
        { err: error.message },
        'identity provider unavailable; cached keys still verify, next attempt after the back-off',
      );
    const issuer = connectOidcIssuer(identity.issuer, identity.jwksUrl, onFetchError);
    const verifier = createJwtVerifier({
      ...identity,
      keys: issuer.keys,
      fetchEmail: issuer.fetchEmail,
    });
    return { verifier, devIssuer: null, devRoutes: [] };
  }
  const key = await loadOrCreateSigningKey(config.dataDir);
  const issuer = devIssuerUrl(config.host, config.port);
  const verifier = createJwtVerifier({
    issuer,
    audience: identity.audience,
    keys: localKeys(key),
    emailClaim: identity.emailClaim,
  });
  return { verifier, devIssuer: issuer, devRoutes: [devIdentityProviderRoutes(issuer, key)] };
}

/** This process's name in the background jobs' leases: where it runs, its pid, and a nonce. */
export const instanceName = (): string =>
  `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;

export function tierPolicy(config: Config): TierPolicy {
  const tierByPrice = new Map([...config.prices].map(([tier, price]) => [price, tier]));
  return { tierByPrice, graceDays: config.graceDays };
}

// The simulator keeps its state in a database of its own: on PostgreSQL a small pool of its own (the
// same database, its sim_* tables); on PGlite a second instance, since the service may ask the
// provider to re-read a subscription while its single PGlite connection is inside a transaction.
const simulatorDatabase = (reach: ReachableDatabaseConfig): ReachableDatabaseConfig =>
  reach.kind === 'postgres' ? { ...reach, poolSize: 4 } : reach;

/**
 * The whole service. It owns the embedded database (a second service on the same DATA_DIR is
 * refused), except a cluster worker (`worker: true`), which reaches its primary's and does not
 * migrate: the primary has.
 */
export async function compose(config: Config, { worker = false } = {}): Promise<Composition> {
  const logger = createLogger(config.logLevel);
  const server = await (worker ? reachDatabase : serveDatabase)(config.database);
  try {
    return await composeOn(config, server, logger, !worker);
  } catch (error) {
    await server.stop();
    throw error;
  }
}

async function composeOn(
  config: Config,
  server: DatabaseServer,
  logger: Logger,
  migrate: boolean,
): Promise<Composition> {
  const { db, applied } = migrate
    ? await openMigratedDatabase(server.reach)
    : { db: await openDatabase(server.reach), applied: [] };
  const store = createStore(db);
  const identity = await composeIdentity(config, logger);
  // Loaded only for the simulator: with a real provider no line of the simulator package is loaded.
  const embedded =
    config.payments.kind === 'simulator' ? await import('./dev/embedded-simulator.ts') : null;
  const simulatorDb = embedded ? await openDatabase(simulatorDatabase(server.reach)) : null;
  const simulator =
    embedded && simulatorDb
      ? await embedded.startEmbeddedSimulator(config, simulatorDb, logger)
      : null;
  const stripe = createStripeClient(
    config.payments.apiKey,
    simulator?.url ?? (config.payments.kind === 'stripe' ? config.payments.apiBase : null),
  );
  const payments = withSharedReads(createStripePayments(stripe, logger));
  const policy = tierPolicy(config);
  const metrics = createPrometheusMetrics(() => db.poolStats());
  const ledger = createEventLedger(db);
  const limitCounts = createRateLimitCounts(db);
  const jobs = scheduledJobs({
    store,
    payments,
    ledger,
    leases: createJobLeases(db),
    limits: limitCounts,
    metrics,
    log: logger,
    holder: instanceName(),
    reconcileEveryMs: config.reconcileEveryMs,
    retentionDays: config.retentionDays,
  });
  const services: Services = {
    store,
    // Verified tokens are remembered (bounded, never past exp, at most 60 s): a client repeating its
    // token costs a hash, not a signature check. See cached-verifier.ts.
    verifier: createCachedVerifier(identity.verifier),
    users: new UserService(store, policy),
    checkout: new CheckoutService(store, payments, config, metrics),
    portal: new PortalService(store, payments, config),
    summaries: new SubscriptionSummaryService(store, policy, config),
    webhooks: new WebhookService({
      ledger,
      store,
      verifier: createStripeWebhookVerifier(config.webhookSecrets),
      payments,
      settings: config.payments,
      log: logger,
      metrics,
    }),
    payments,
    metrics,
    async checkReady() {
      const pending = await pendingMigrations(db);
      if (pending > 0) throw new Error(`${pending} migration(s) not applied`);
    },
    http: {
      corsOrigins: config.corsOrigins,
      checkoutRateLimit: config.checkoutRateLimit,
      limitCounter: limitCounts,
      requestTimeoutMs: config.requestTimeoutMs,
      // Without a token the API port serves /metrics only on loopback in development: names of this machine only.
      metrics: {
        onApiPort: config.metrics.apiPort,
        token: config.metrics.token,
        localNames: config.localNames,
      },
    },
    devRoutes: [...identity.devRoutes],
  };
  if (embedded && simulator) {
    const pages = {
      ...services,
      policy,
      simulatorUrl: simulator.url,
      issuer: identity.devIssuer,
      perUserPerMinute: config.checkoutRateLimit,
      localNames: config.localNames,
    };
    services.devRoutes.push(embedded.developmentPages(pages));
  }
  return {
    services,
    db,
    logger,
    migrationsApplied: applied,
    simulatorUrl: simulator?.url ?? null,
    devIssuer: identity.devIssuer,
    setServiceUrl: (url) => simulator?.setServiceUrl(url),
    jobs,
    async close() {
      await jobs.stop();
      await simulator?.close();
      await simulatorDb?.close();
      await db.close();
      await server.stop();
    },
  };
}
