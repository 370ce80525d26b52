// GET /api/v1/billing/subscription through the whole loop on the embedded defaults (the simulator
// delivering signed webhooks to the listening service, the example entitlements file): a new user
// is free with the free tier's features; paying, switching plan in the portal and cancelling there
// (the flexible billing mode's way: cancel_at alone) change the tier, its features and limits, and
// the subscription shown; a cancel_at that passes ends the tier with no deletion event.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, buildTestApp, deliverWebhooks, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';
import { until } from '../helpers/browser.ts';

const FREE = { features: ['core'], limits: { projects: 3, seats: 1 } };
const PRO = { features: ['core', 'export', 'api'], limits: { projects: 20, seats: 5 } };
const TEAM = {
  features: ['core', 'export', 'api', 'sso', 'audit_log'],
  limits: { projects: null, seats: null },
};
const ISO_WITH_OFFSET = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;

describe(`GET /billing/subscription (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
    await deliverWebhooks(t);
  });
  after(() => t.close());

  const summary = async (sub: string) => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/billing/subscription',
      headers: bearer(await t.token(sub)),
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };
  const post = async (sub: string, path: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api/v1/billing/${path}`,
      headers: bearer(await t.token(sub)),
      payload: {},
    });
  /** Checks out and pays on the simulator's page; the webhooks reach the service. */
  async function subscribe(sub: string): Promise<string> {
    const { url } = (await post(sub, 'checkout')).json();
    const paid = await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    assert.equal(paid.status, 303);
    await until(
      () => summary(sub),
      (s) => s.subscription !== null,
    );
    return subscriptionId(sub);
  }
  const subscriptionId = async (sub: string) =>
    (
      await t.composition.db.query<{ id: string }>(
        'SELECT s.id FROM subscriptions s JOIN users u ON u.id = s.user_id WHERE u.idp_id = $1 ORDER BY s.created_at DESC LIMIT 1',
        [sub],
      )
    )[0]!.id;
  /** Presses a button of the billing portal the service opens for `sub`. */
  async function inPortal(sub: string, action: string, fields: Record<string, string>) {
    const { url } = (await post(sub, 'portal')).json();
    const response = await fetch(`${url}/${action}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    assert.equal(response.status, 303);
  }

  test('first access creates the profile: free, the free features, the plan a checkout would sell', async () => {
    const body = await summary('sum-new');
    assert.deepEqual(body, {
      tier: 'free',
      plan: 'pro',
      trial_eligible: false,
      ...FREE,
      subscription: null,
    });
    const rows = await t.composition.db.query('SELECT id FROM users WHERE idp_id = $1', [
      'sum-new',
    ]);
    assert.equal(rows.length, 1);
  });

  test('pay, switch plan and cancel in the portal: the tier, its entitlements and the subscription follow', async () => {
    const id = await subscribe('sum-payer');
    let body = await summary('sum-payer');
    assert.equal(body.tier, 'pro');
    assert.deepEqual([body.features, body.limits], [PRO.features, PRO.limits]);
    assert.equal(body.subscription.status, 'active');
    assert.equal(body.subscription.plan, 'pro');
    assert.equal(body.subscription.interval, 'month');
    assert.match(body.subscription.current_period_end, ISO_WITH_OFFSET);
    assert.deepEqual(
      [body.subscription.cancel_at, body.subscription.cancel_at_period_end],
      [null, false],
    );
    assert.equal(body.subscription.trial_end, null);

    await inPortal('sum-payer', 'switch', { subscription: id, price: 'price_sim_team' });
    body = await until(
      () => summary('sum-payer'),
      (s) => s.tier === 'team',
    );
    assert.deepEqual(
      [body.features, body.limits, body.subscription.plan],
      [TEAM.features, TEAM.limits, 'team'],
    );

    // The portal cancels the way Stripe's does for the pinned version: cancel_at, the flag false.
    await inPortal('sum-payer', 'cancel-at-period-end', { subscription: id });
    body = await until(
      () => summary('sum-payer'),
      (s) => s.subscription.cancel_at !== null,
    );
    const provider = await simulatorClient(t).subscriptions.retrieve(id);
    assert.equal(provider.cancel_at_period_end, false);
    assert.equal(body.subscription.cancel_at, body.subscription.current_period_end);
    assert.equal(body.subscription.cancel_at_period_end, true, 'it ends when the period does');
    assert.equal(body.tier, 'team', 'paid until then');

    const ended = await fetch(`${t.composition.simulatorUrl}/_sim/subscriptions/${id}/renew`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.config.payments.apiKey}` },
    });
    assert.equal(ended.status, 200);
    body = await until(
      () => summary('sum-payer'),
      (s) => s.tier === 'free',
    );
    assert.deepEqual(
      [body.features, body.limits, body.subscription.status],
      [FREE.features, FREE.limits, 'canceled'],
    );
  });

  test('a cancellation with cancel_at alone keeps the tier until then and ends it after, with no deletion event', async () => {
    const id = await subscribe('sum-flexible');
    const at = Math.floor(Date.now() / 1000) + 3;
    await simulatorClient(t).subscriptions.update(id, { cancel_at: at });
    let body = await until(
      () => summary('sum-flexible'),
      (s) => s.subscription.cancel_at !== null,
    );
    assert.equal(Date.parse(body.subscription.cancel_at), at * 1000);
    assert.equal(body.subscription.cancel_at_period_end, false);
    assert.equal(body.tier, 'pro');
    assert.equal((await post('sum-flexible', 'checkout')).statusCode, 409);

    await new Promise((resolve) => setTimeout(resolve, (at + 1) * 1000 - Date.now()));
    body = await summary('sum-flexible');
    assert.equal(body.tier, 'free');
    assert.deepEqual([body.features, body.limits], [FREE.features, FREE.limits]);
    assert.equal(body.subscription.status, 'active', 'the provider never said it ended');
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/v1/users/me',
      headers: bearer(await t.token('sum-flexible')),
    });
    assert.equal(me.json().tier, 'free');
    const deleted = await simulatorClient(t).events.list({
      type: 'customer.subscription.deleted',
      limit: 100,
    });
    assert.ok(deleted.data.every((event) => (event.data.object as { id: string }).id !== id));
    assert.equal((await post('sum-flexible', 'checkout')).statusCode, 200, 'it is over: a new one');
  });
});
