// Runs the payment simulator (the @billing/payments-simulator workspace package) inside `npm start`
// when no PAYMENTS_API_KEY is set. The composition root gives it its database and closes it (see
// composition/payments.ts for why it is a database of its own). This module is imported only then, and the
// package only from here, so neither is loaded, nor in the bundle's start-up path, otherwise.
import type { Logger } from 'pino';
import type { Database } from '../adapters/database/sql-client.ts';
import type { Config } from '../config.ts';
import { listenFailure } from '../process/listen-failure.ts';

export interface EmbeddedSimulator {
  url: string;
  /** Where the service listens, for the simulator's webhook deliveries. */
  setServiceUrl(url: string): void;
  close(): Promise<void>;
}

/** The development pages: `/`, the return pages after the simulator's checkout, and `/billing`. */
export { developmentPages } from './development-pages.ts';

export async function startEmbeddedSimulator(
  config: Config,
  db: Database,
  logger: Logger,
): Promise<EmbeddedSimulator> {
  let serviceUrl: string | null = null;
  const log = logger.child({ component: 'payments-simulator' });
  const { startPaymentsSimulator } = await import('@billing/payments-simulator');
  const simulator = await startPaymentsSimulator({
    db,
    host: config.payments.kind === 'simulator' ? config.payments.simulatorHost : '127.0.0.1',
    port: config.payments.kind === 'simulator' ? config.payments.simulatorPort : 0,
    apiKey: config.payments.apiKey,
    webhookUrl: () => (serviceUrl === null ? null : `${serviceUrl}/api/v1/webhooks/payments`),
    webhookSecret: config.webhookSecrets[0]!,
    // The simulator's catalogue as BILLING_PRICES names it: `pro`, `pro@year`.
    prices: new Map(
      config.catalog.map(({ tier, interval, price }) => [
        interval === 'month' ? tier : `${tier}@${interval}`,
        price,
      ]),
    ),
    // The packs of BILLING_CREDIT_PACKS as one-time prices of its catalogue.
    oneTimePrices: new Map(config.creditPacks.map(({ name, price }) => [name, price])),
    // The names its pages are reached by besides IP addresses and localhost: APP_URL's, HOST, its own.
    allowedHosts: [
      ...config.localNames,
      config.payments.kind === 'simulator' ? config.payments.simulatorHost : '127.0.0.1',
    ],
    log: (message, fields) => log.info(fields ?? {}, message),
  }).catch((error: unknown) => {
    throw listenFailure(
      { port: 'PAYMENTS_SIMULATOR_PORT', host: 'PAYMENTS_SIMULATOR_HOST' },
      error,
    );
  });
  logger.info(
    `payment simulator: ${simulator.url} (dashboard with lifecycle controls at ${simulator.url}/)`,
  );
  return {
    url: simulator.url,
    setServiceUrl: (url) => {
      serviceUrl = url;
    },
    close: () => simulator.close(),
  };
}
