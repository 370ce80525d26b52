// The service's portal configuration changed at the provider while the service runs: deactivated
// there, the next portal call is refused on it, checks it again (which sets it back) and opens the
// session on it, with a log line, rather than answering 502 until a restart; edited there, it is
// set back by the first portal call once the service's check is an hour old, and not before.
import assert from 'node:assert/strict';
import { after, before, describe, test, type TestContext } from 'node:test';
import type Stripe from 'stripe';
import { createStripeClient } from '../../src/adapters/payments/stripe-client.ts';
import { OWN_CONFIGURATION_METADATA } from '../../src/adapters/payments/stripe-portal-configuration.ts';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';

describe(`the portal configuration changed at the provider while the service runs (${databaseLabel})`, () => {
  let t: TestApp;
  let stripe: Stripe;
  let own: Stripe.BillingPortal.Configuration;
  before(async () => {
    t = await buildTestApp();
    stripe = createStripeClient(t.config.payments.apiKey, t.composition.simulatorUrl);
    const all = await stripe.billingPortal.configurations.list({ is_default: false });
    own = all.data.find((c) => c.metadata?.managed_by === OWN_CONFIGURATION_METADATA.managed_by)!;
    assert.ok(own, 'made at start-up');
  });
  after(() => t.close());

  const call = async (sub: string, path: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api/v1/billing/${path}`,
      headers: bearer(await t.token(sub)),
      payload: {},
    });
  const current = () => stripe.billingPortal.configurations.retrieve(own.id);
  const configurations = async () =>
    (await stripe.billingPortal.configurations.list({ is_default: false })).data.length;

  test('deactivated by hand: the next portal call sets it back and opens on it, 200', async () => {
    assert.equal((await call('deactivated', 'checkout')).statusCode, 200);
    await stripe.billingPortal.configurations.update(own.id, { active: false });
    const portal = await call('deactivated', 'portal');
    assert.equal(portal.statusCode, 200, portal.body);
    assert.equal((await current()).active, true);
    assert.equal(await configurations(), 1, 'set back, not another made');
    assert.equal((await call('deactivated', 'portal')).statusCode, 200);
  });

  test('edited by hand: kept within the hour, set back by the first portal call after it', async (context: TestContext) => {
    assert.equal((await call('edited', 'checkout')).statusCode, 200);
    context.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    await stripe.billingPortal.configurations.update(own.id, {
      features: { subscription_update: { proration_behavior: 'always_invoice' } },
    });
    const editedBy = async () => (await current()).features.subscription_update.proration_behavior;
    context.mock.timers.tick(59 * 60_000);
    assert.equal((await call('edited', 'portal')).statusCode, 200);
    assert.equal(await editedBy(), 'always_invoice', 'not checked again within the hour');
    context.mock.timers.tick(2 * 60_000);
    assert.equal((await call('edited', 'portal')).statusCode, 200);
    assert.equal(await editedBy(), 'create_prorations', 'set back once the check is an hour old');
  });
});
