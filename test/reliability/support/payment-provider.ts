// The payment simulator run on its own (in memory), behind a faulty front, so a test can make the
// "provider" fail, lose answers or hang while the service talks to it with the real stripe SDK,
// retries and idempotency keys included. `env` points a service at the front.
import { openPglite } from '../../../src/adapters/database/pglite.ts';
import { startPaymentsSimulator } from '../../../src/dev/payments-simulator/index.ts';
import { startFaultyFront, type FaultyFront } from './faulty-front.ts';

export const PROVIDER_API_KEY = 'sk_test_simulator';
export const PROVIDER_WEBHOOK_SECRET = 'whsec_local_simulator';

export interface FaultyProvider {
  front: FaultyFront;
  /** The simulator itself, bypassing the front. */
  simulatorUrl: string;
  /** Service environment that uses this provider. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startFaultyProvider(): Promise<FaultyProvider> {
  const db = await openPglite();
  const simulator = await startPaymentsSimulator({
    db,
    host: '127.0.0.1',
    port: 0,
    apiKey: PROVIDER_API_KEY,
    webhookUrl: () => null,
    webhookSecret: PROVIDER_WEBHOOK_SECRET,
    prices: new Map([['pro', 'price_sim_pro']]),
  });
  const front = await startFaultyFront(simulator.url);
  return {
    front,
    simulatorUrl: simulator.url,
    env: { PAYMENTS_API_KEY: PROVIDER_API_KEY, PAYMENTS_API_BASE: front.url, PAYMENTS_WEBHOOK_SECRET: PROVIDER_WEBHOOK_SECRET, BILLING_PRICES: 'pro=price_sim_pro' },
    async close() {
      await front.close();
      await simulator.close();
      await db.close();
    },
  };
}
