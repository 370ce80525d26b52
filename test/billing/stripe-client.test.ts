// The SDK pointed at PAYMENTS_API_BASE reaches it at an IPv6 address too: a URL writes the address
// in brackets, and a socket wants it without (the SDK was given `[::1]` and found no such host).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startPaymentsSimulator, type PaymentsSimulator } from '@billing/payments-simulator';
import { openPglite } from '../../src/adapters/database/pglite.ts';
import type { Database } from '../../src/adapters/database/sql-client.ts';
import { createStripeClient } from '../../src/adapters/payments/stripe-client.ts';
import { SIMULATOR_API_KEY, SIMULATOR_WEBHOOK_SECRET } from '../../src/config.ts';
import { onceInTheSuite } from '../helpers/database.ts';

describe('PAYMENTS_API_BASE at an IPv6 address', onceInTheSuite, () => {
  let db: Database;
  let simulator: PaymentsSimulator;
  before(async () => {
    db = await openPglite();
    simulator = await startPaymentsSimulator({
      db,
      host: '::1',
      port: 0,
      apiKey: SIMULATOR_API_KEY,
      webhookUrl: () => null,
      webhookSecret: SIMULATOR_WEBHOOK_SECRET,
      prices: new Map([['pro', 'price_sim_pro']]),
    });
  });
  after(async () => {
    await simulator?.close();
    await db?.close();
  });

  test('http://[::1]:port: the SDK reads from it', async () => {
    assert.match(simulator.url, /^http:\/\/\[::1\]:\d+$/);
    const stripe = createStripeClient(SIMULATOR_API_KEY, simulator.url);
    const price = await stripe.prices.retrieve('price_sim_pro');
    assert.equal(price.id, 'price_sim_pro');
  });
});
