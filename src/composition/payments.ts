// The payment provider: Stripe's API, or the simulator standing in for it (no PAYMENTS_API_KEY).
// The service runs the simulator inside itself, with the development pages that exist only beside
// it; an operator command reaches that one over HTTP.
import type { FastifyPluginAsync } from 'fastify';
import type { Logger } from 'pino';
import type { Services } from '../app.ts';
import type { Config, ReachableDatabaseConfig } from '../config.ts';
import { openDatabase } from '../adapters/database/open.ts';
import { createStripeClient } from '../adapters/payments/stripe-client.ts';
import { withSharedReads } from '../adapters/payments/shared-reads.ts';
import { createStripePayments } from '../adapters/payments/stripe-payments.ts';
import type { DevelopmentPagesOptions } from '../dev/development-pages.ts';
import type { EmbeddedSimulator } from '../dev/embedded-simulator.ts';
import type { PaymentsProvider } from '../domain/ports/payments-provider.ts';
import { localOrigin } from '../process/local-origin.ts';
import { runningService } from '../process/service-record.ts';

/** The one place the payments port is built: at simulatorUrl, else where the configuration says. */
export function paymentsProvider(
  config: Config,
  logger: Logger,
  simulatorUrl: string | null,
): PaymentsProvider {
  const stripeBase = config.payments.kind === 'stripe' ? config.payments.apiBase : null;
  const stripe = createStripeClient(config.payments.apiKey, simulatorUrl ?? stripeBase);
  return withSharedReads(createStripePayments(stripe, logger));
}

export interface SimulatorInService extends EmbeddedSimulator {
  /** `/`, `/billing` and the return pages after the simulator's checkout, on the routes' services. */
  developmentPages(services: Services, others: PagesBesideServices): FastifyPluginAsync;
}

type PagesBesideServices = Pick<DevelopmentPagesOptions, 'store' | 'policy'>;

// The simulator keeps its state in a database of its own: on PostgreSQL a small pool of its own (the
// same database, its sim_* tables); on PGlite a second instance, since the service may ask the
// provider to re-read a subscription while its single PGlite connection is inside a transaction.
const simulatorDatabase = (reach: ReachableDatabaseConfig): ReachableDatabaseConfig =>
  reach.kind === 'postgres' ? { ...reach, poolSize: 4 } : reach;

/** Null with a real provider: then no line of the simulator package is loaded. */
export async function startSimulatorInService(
  config: Config,
  reach: ReachableDatabaseConfig,
  logger: Logger,
): Promise<SimulatorInService | null> {
  if (config.payments.kind !== 'simulator') return null;
  const embedded = await import('../dev/embedded-simulator.ts');
  const db = await openDatabase(simulatorDatabase(reach));
  const simulator = await embedded.startEmbeddedSimulator(config, db, logger);
  return {
    ...simulator,
    developmentPages: (
      { users, checkout, portal, summaries, organizations, credits, verifier },
      others,
    ) =>
      embedded.developmentPages({
        ...others,
        users,
        credits,
        checkout,
        portal,
        summaries,
        organizations,
        verifier,
        managerRoles: config.organizations?.managerRoles ?? [],
        appUrl: config.appUrl,
        simulatorUrl: simulator.url,
        perUserPerMinute: config.checkoutRateLimit,
        trialRequiresCard: config.trialRequiresCard,
        localNames: config.localNames,
      }),
    async close() {
      await simulator.close();
      await db.close();
    },
  };
}

/**
 * For an operator command without PAYMENTS_API_KEY: the simulator of the service running on this
 * DATA_DIR, whatever its port, else where the configuration says; refused when none answers.
 * Null with a real provider.
 */
export async function runningSimulatorUrl(config: Config): Promise<string | null> {
  if (config.payments.kind === 'stripe') return null;
  const running = await runningService(config.dataDir);
  const url =
    running?.simulatorUrl ??
    localOrigin(config.payments.simulatorHost, config.payments.simulatorPort);
  const answers = await fetch(`${url}/favicon.ico`, { signal: AbortSignal.timeout(5_000) }).then(
    () => true,
    () => false,
  );
  if (answers) return url;
  const why =
    running === null
      ? `no service runs on DATA_DIR ${config.dataDir} (nothing answers at ${url}, PAYMENTS_SIMULATOR_PORT)`
      : `nothing answers at ${url}, where the service (pid ${running.pid}) said it would be`;
  throw new Error(
    `the payment simulator runs inside the service and ${why}: start the service (npm start), then run this again`,
  );
}
