// Runs the payment simulator inside `npm start` when no PAYMENTS_API_KEY is set. It keeps its
// state in a database of its own: on PGlite a separate instance, since the service may ask the
// provider to re-read a subscription while its single PGlite connection is inside a transaction.
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { openPostgres } from '../adapters/database/postgres.ts';
import { startPaymentsSimulator } from './payments-simulator/index.ts';

export interface EmbeddedSimulator {
  url: string;
  setServiceUrl(url: string): void;
  close(): Promise<void>;
}

export async function startEmbeddedSimulator(config: Config, logger: Logger): Promise<EmbeddedSimulator> {
  const db =
    config.database.kind === 'postgres'
      ? openPostgres(config.database.url, 4)
      : await (await import('../adapters/database/pglite.ts')).openPglite(config.database.dataDir === null ? null : join(config.dataDir, 'simulator-pglite'));
  let serviceUrl: string | null = null;
  const log = logger.child({ component: 'payments-simulator' });
  const simulator = await startPaymentsSimulator({
    db,
    host: config.payments.kind === 'simulator' ? config.payments.simulatorHost : '127.0.0.1',
    port: config.payments.kind === 'simulator' ? config.payments.simulatorPort : 0,
    apiKey: config.payments.apiKey,
    webhookUrl: () => (serviceUrl === null ? null : `${serviceUrl}/api/v1/webhooks/payments`),
    webhookSecret: config.webhookSecrets[0]!,
    prices: config.prices,
    log: (message, fields) => log.info(fields ?? {}, message),
  });
  logger.info(`payment simulator: ${simulator.url} (dashboard with lifecycle controls at ${simulator.url}/)`);
  return {
    url: simulator.url,
    setServiceUrl: (url) => {
      serviceUrl = url;
    },
    async close() {
      await simulator.close();
      await db.close();
    },
  };
}
