// The payment simulator run on its own (in memory), behind a faulty front, so a test can make the
// "provider" fail, lose answers or hang while the service talks to it with the real stripe SDK,
// retries and idempotency keys included. `env` points a service at the front.
import type Stripe from 'stripe';
import { openPglite } from '../../src/adapters/database/pglite.ts';
import { createStripeClient } from '../../src/adapters/payments/stripe-client.ts';
import { startPaymentsSimulator } from '@billing/payments-simulator';
import { buildTestApp, type TestApp } from './app.ts';
import type { FixtureEvent } from './stripe-fixtures.ts';
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
    env: {
      PAYMENTS_API_KEY: PROVIDER_API_KEY,
      PAYMENTS_API_BASE: front.url,
      PAYMENTS_WEBHOOK_SECRET: PROVIDER_WEBHOOK_SECRET,
      BILLING_PRICES: 'pro=price_sim_pro',
    },
    async close() {
      await front.close();
      await simulator.close();
      await db.close();
    },
  };
}

export interface AppWithFaultyProvider {
  provider: FaultyProvider;
  t: TestApp;
  /** The SDK on the simulator itself: never faulted, not among the front's requests. */
  direct: Stripe;
  /** Every event the provider has not delivered (none is: its webhook URL is unset). */
  undelivered(): Promise<FixtureEvent[]>;
  close(): Promise<void>;
}

/** A test app whose payment provider is the simulator behind a faulty front; `env` for more settings. */
export async function buildAppWithFaultyProvider(
  env: Record<string, string> = {},
): Promise<AppWithFaultyProvider> {
  const provider = await startFaultyProvider();
  const t = await buildTestApp({ ...provider.env, ...env });
  const direct = createStripeClient(PROVIDER_API_KEY, provider.simulatorUrl);
  return {
    provider,
    t,
    direct,
    undelivered: async () =>
      (await direct.events
        .list({ delivery_success: false, limit: 100 })
        .autoPagingToArray({ limit: 10_000 })) as unknown as FixtureEvent[],
    async close() {
      await t.close();
      await provider.close();
    },
  };
}
