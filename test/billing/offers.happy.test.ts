// What a checkout sells with, from the configuration (CONTRACT §9): the exact Stripe parameters
// for each offer, then the sessions the real SDK opens on the simulator with them: promotion codes
// (SAVE20 typed on the page changes the price and the invoice), automatic tax (its line on the
// page and the invoice), a trial that needs a card, and none of it by default.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checkoutSessionParams } from '../../src/adapters/payments/stripe-payments.ts';
import type { CheckoutOffer } from '../../src/domain/model/checkout.ts';
import { bearer, buildTestApp, deliverWebhooks, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/browser.ts';
import { checkoutUrl, sessionId } from '../helpers/checkout.ts';
import { databaseLabel } from '../helpers/database.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';

const NONE: CheckoutOffer = {
  trialDays: null,
  trialRequiresCard: true,
  allowPromotionCodes: false,
  automaticTax: false,
};
const session = (offer: Partial<CheckoutOffer>) =>
  checkoutSessionParams({
    customerId: 'cus_1',
    priceId: 'price_1',
    quantity: 1,
    owner: { type: 'user', id: 'u1' },
    successUrl: 'https://app.example.com/ok',
    cancelUrl: 'https://app.example.com/back',
    offer: { ...NONE, ...offer },
  });

describe('checkout session parameters for the offers', () => {
  test('no offer: none of the parameters', () => {
    const params = session({});
    for (const name of [
      'allow_promotion_codes',
      'automatic_tax',
      'customer_update',
      'tax_id_collection',
      'payment_method_collection',
    ])
      assert.equal(name in params, false, name);
    assert.deepEqual(params.subscription_data, { metadata: { user_id: 'u1' } });
  });
  test('a trial that needs a card: the days only', () => {
    const params = session({ trialDays: 14 });
    assert.deepEqual(params.subscription_data, {
      metadata: { user_id: 'u1' },
      trial_period_days: 14,
    });
    assert.equal('payment_method_collection' in params, false);
  });
  test('a trial without a card: if_required, and cancelled if it ends without a payment method', () => {
    const params = session({ trialDays: 7, trialRequiresCard: false });
    assert.equal(params.payment_method_collection, 'if_required');
    assert.deepEqual(params.subscription_data?.trial_settings, {
      end_behavior: { missing_payment_method: 'cancel' },
    });
  });
  test('no card required but no trial (not eligible): a card as usual', () => {
    const params = session({ trialRequiresCard: false });
    assert.equal('payment_method_collection' in params, false);
    assert.equal(params.subscription_data?.trial_settings, undefined);
  });
  test('promotion codes and automatic tax', () => {
    const params = session({ allowPromotionCodes: true, automaticTax: true });
    assert.equal(params.allow_promotion_codes, true);
    assert.deepEqual(params.automatic_tax, { enabled: true });
    assert.deepEqual(params.customer_update, { address: 'auto', name: 'auto' });
    assert.deepEqual(params.tax_id_collection, { enabled: true });
  });
});

describe(`checkouts with promotion codes, tax and a trial that needs a card (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      BILLING_ALLOW_PROMOTION_CODES: 'true',
      BILLING_AUTOMATIC_TAX: 'true',
      BILLING_TRIAL_DAYS: 'team=7',
    });
    await deliverWebhooks(t);
  });
  after(() => t.close());

  const checkout = (sub: string) => checkoutUrl(t, sub);

  test('SAVE20 on the page and the tax line: the price shown, the invoice sent, the tier', async () => {
    const url = await checkout('offer-ann');
    const stripe = simulatorClient(t);
    const opened = await stripe.checkout.sessions.retrieve(sessionId(url));
    assert.equal(opened.allow_promotion_codes, true);
    assert.equal(opened.automatic_tax.enabled, true);
    assert.equal(opened.tax_id_collection?.enabled, true);
    assert.equal(opened.payment_method_collection, 'always');
    let page = await (await fetch(url)).text();
    assert.match(page, /Promotion code/);
    assert.match(page, /Sales tax \(simulated, 10%\)[\s\S]*\$1\.50/);
    assert.doesNotMatch(page, /days free/, 'pro has no trial here');

    const typed = await fetch(`${url}/promotion-code`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'code=SAVE20',
    });
    assert.equal(typed.status, 303);
    page = await (await fetch(url)).text();
    assert.match(page, /Total due today \$13\.20/);

    await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    const paid = await stripe.checkout.sessions.retrieve(sessionId(url));
    const invoice = await stripe.invoices.retrieve(paid.invoice as string);
    assert.deepEqual([invoice.subtotal, invoice.total], [1500, 1320]);
    const me = async () =>
      (
        await t.app.inject({
          method: 'GET',
          url: '/api/v1/users/me',
          headers: bearer(await t.token('offer-ann')),
        })
      ).json().tier;
    assert.equal(await until(me, (tier) => tier === 'pro'), 'pro');
  });

  test('a plan with trial days and a card required: "7 days free, then $49.00 per month", with the card', async () => {
    const user = await t.composition.store.users.upsertByIdpId('offer-bo', 'offer-bo@example.com');
    await t.composition.db.query("UPDATE users SET plan = 'team' WHERE id = $1", [user.id]);
    const url = await checkout('offer-bo');
    const page = await (await fetch(url)).text();
    assert.match(page, /7 days free, then \$49\.00 per month/);
    assert.match(page, /4242 4242/);
    const [row] = await t.composition.db.query<{ trial_days: number | null }>(
      'SELECT trial_days FROM checkout_sessions WHERE id = $1',
      [sessionId(url)],
    );
    assert.equal(row!.trial_days, 7);
    assert.equal(await checkout('offer-bo'), url, 'a second click: the same session');
  });
});
