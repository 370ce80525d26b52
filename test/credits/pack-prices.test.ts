// BILLING_CREDIT_PACKS against the provider at start-up (the embedded simulator through the real
// stripe SDK): each pack's price must exist and be one-time with a set amount, in the plans'
// currency; a mismatch stops start-up naming the variable, the price and the pack. The packs'
// amounts are what GET /credits shows.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PriceMismatchError } from '../../src/domain/billing/provider-setup.ts';
import { PackPrices } from '../../src/domain/credits/pack-prices.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';

const SILENT = { warn: () => {} };

describe(`credit packs at start-up (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const startUp = (packs: { name: string; price: string; credits: number }[]) =>
    new PackPrices(t.composition.payments, packs, 'price_sim_pro', SILENT).startUp();

  test("the simulator's packs: checked, their amounts learnt", async () => {
    const prices = new PackPrices(
      t.composition.payments,
      t.config.creditPacks,
      'price_sim_pro',
      SILENT,
    );
    await prices.startUp();
    assert.deepEqual(
      t.config.creditPacks.map(({ name }) => prices.priceOf(name)),
      [
        { amount: 900, currency: 'usd' },
        { amount: 3500, currency: 'usd' },
      ],
    );
  });

  test('a price the provider does not have, or a recurring one: start-up refused, naming both', async () => {
    await assert.rejects(
      startUp([
        { name: 'small', price: 'price_sim_credits_small', credits: 5 },
        { name: 'gone', price: 'price_nowhere', credits: 5 },
      ]),
      (error: unknown) =>
        error instanceof PriceMismatchError &&
        error.message ===
          'Invalid configuration: BILLING_CREDIT_PACKS names price_nowhere (gone), which the provider does not have',
    );
    await assert.rejects(
      startUp([{ name: 'monthly', price: 'price_sim_team', credits: 5 }]),
      /^PriceMismatchError: Invalid configuration: BILLING_CREDIT_PACKS names price_sim_team \(monthly\), which is not a one-time price of a set amount$/,
    );
  });
});
