// The composition root of the operator CLI: what a command needs and nothing else (no HTTP server,
// simulator or identity provider), on the running service's data. With the embedded database the
// command reaches the server of the service that owns DATA_DIR (or serves it itself while none
// runs); without PAYMENTS_API_KEY it reaches the simulator inside the running service over HTTP.
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { createEventLedger } from './adapters/database/event-ledger.ts';
import { createJobLeases } from './adapters/database/job-leases.ts';
import { openMigratedDatabase, reachDatabase } from './adapters/database/open.ts';
import type { Database } from './adapters/database/sql-client.ts';
import { createStore } from './adapters/database/store.ts';
import { createPrometheusMetrics } from './adapters/metrics/prometheus.ts';
import { createStripeClient } from './adapters/payments/stripe-client.ts';
import { createStripeWebhookVerifier } from './adapters/payments/stripe-events.ts';
import { withSharedReads } from './adapters/payments/shared-reads.ts';
import { createStripePayments } from './adapters/payments/stripe-payments.ts';
import type { Config } from './config.ts';
import type { JobLeases } from './domain/ports/job-leases.ts';
import type { PaymentsProvider } from './domain/ports/payments-provider.ts';
import type { Store } from './domain/ports/store.ts';
import { WebhookService } from './domain/webhooks/webhook-service.ts';
import { localOrigin } from './local-origin.ts';
import { runningService } from './process/service-record.ts';
import { createLogger } from './logger.ts';

/** What an operator command works with: no HTTP server, simulator or identity provider. */
export interface OperatorComposition {
  db: Database;
  store: Store;
  /** The background jobs' leases, shared with the running services (one reconciliation at a time). */
  leases: JobLeases;
  logger: Logger;
  /** The payment provider: Stripe, or the simulator inside the running service (refused when none runs). */
  payments(): Promise<PaymentsProvider>;
  webhooks(): Promise<WebhookService>;
  close(): Promise<void>;
}

async function operatorPayments(config: Config, logger: Logger): Promise<PaymentsProvider> {
  if (config.payments.kind === 'stripe')
    return createStripePayments(
      createStripeClient(config.payments.apiKey, config.payments.apiBase),
      logger,
    );
  // The simulator of the service running on this DATA_DIR, whatever its port; else where the configuration says.
  const running = await runningService(config.dataDir);
  const url =
    running?.simulatorUrl ??
    localOrigin(config.payments.simulatorHost, config.payments.simulatorPort);
  const answers = await fetch(`${url}/favicon.ico`, { signal: AbortSignal.timeout(5_000) }).then(
    () => true,
    () => false,
  );
  if (!answers) {
    const why =
      running === null
        ? `no service runs on DATA_DIR ${config.dataDir} (nothing answers at ${url}, PAYMENTS_SIMULATOR_PORT)`
        : `nothing answers at ${url}, where the service (pid ${running.pid}) said it would be`;
    throw new Error(
      `the payment simulator runs inside the service and ${why}: start the service (npm start), then run this again`,
    );
  }
  return createStripePayments(createStripeClient(config.payments.apiKey, url), logger);
}

/** An operator command's name in the background jobs' leases: `cli` and where it runs. */
export const operatorName = (): string => `cli/${hostname()}/${process.pid}`;

/**
 * For an operator command, on the running service's data: the embedded database of the service
 * that owns DATA_DIR while one runs (else this process serves it for the command's length), and the
 * service's payment simulator over HTTP.
 */
export async function composeOperator(config: Config): Promise<OperatorComposition> {
  const logger = createLogger(config.logLevel);
  const server = await reachDatabase(config.database);
  const { db } = await openMigratedDatabase(server.reach).catch(async (error: unknown) => {
    await server.stop();
    throw error;
  });
  const store = createStore(db);
  const payments = () => operatorPayments(config, logger).then(withSharedReads);
  return {
    db,
    store,
    leases: createJobLeases(db),
    logger,
    payments,
    async webhooks() {
      const metrics = createPrometheusMetrics(() => db.poolStats());
      return new WebhookService({
        ledger: createEventLedger(db),
        store,
        verifier: createStripeWebhookVerifier(config.webhookSecrets),
        payments: await payments(),
        settings: config.payments,
        log: logger,
        metrics,
      });
    },
    async close() {
      await db.close();
      await server.stop();
    },
  };
}
