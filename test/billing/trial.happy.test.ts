// One trial per user, ever, however the earlier subscription became known (CONTRACT §9): a trial
// started through our checkout (and ended unpaid), a subscription made at the provider directly
// (its webhook names the user in metadata), one stored by an operator's sync-user after the
// customer was linked, and any other writer of the subscriptions table (the database marks the
// user). With BILLING_TRIAL_DAYS=14 and BILLING_TRIAL_REQUIRES_CARD=false, on the embedded defaults.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { tierPolicy } from '../../src/composition.ts';
import { syncUser } from '../../src/domain/billing/sync-user.ts';
import { subscriptionWritten } from '../../src/domain/webhooks/subscription-written.ts';
import { bearer, buildTestApp, deliverWebhooks, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/browser.ts';
import { checkoutUrl, TRIAL_WITHOUT_CARD } from '../helpers/checkout.ts';
import { databaseLabel } from '../helpers/database.ts';
import { allDelivered } from '../helpers/deliveries.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';

const DAY_MS = 86_400_000;

describe(`one trial per user (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp(TRIAL_WITHOUT_CARD);
    await deliverWebhooks(t);
  });
  after(() => t.close());

  const summary = async (sub: string) =>
    (
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/billing/subscription',
        headers: bearer(await t.token(sub)),
      })
    ).json();
  /** A checkout's page as the person sees it, with the session's id. */
  async function checkoutPage(sub: string): Promise<{ url: string; page: string }> {
    const url = await checkoutUrl(t, sub);
    return { url, page: await (await fetch(url)).text() };
  }
  const control = (id: string, action: string) =>
    fetch(`${t.composition.simulatorUrl}/_sim/subscriptions/${id}/${action}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.config.payments.apiKey}` },
    });
  const offersNoTrial = (page: string) => {
    assert.doesNotMatch(page, /days free/);
    assert.match(page, /Pay \$15\.00 and subscribe/);
  };

  test('our checkout: a trial without a card, trialing, ended unpaid (canceled: free); the next checkout has no trial', async () => {
    assert.equal((await summary('trial-ann')).trial_eligible, true);
    const { url, page } = await checkoutPage('trial-ann');
    assert.match(page, /14 days free, then \$15\.00 per month/);
    assert.match(page, /No card is needed for the trial/);
    const session = await simulatorClient(t).checkout.sessions.retrieve(url.split('/').pop()!);
    assert.deepEqual([session.payment_method_collection, session.amount_total], ['if_required', 0]);

    const paid = await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    assert.equal(paid.status, 303);
    let body = await until(
      () => summary('trial-ann'),
      (s) => s.subscription?.status === 'trialing',
    );
    assert.equal(body.tier, 'pro');
    assert.deepEqual(body.features, ['core', 'export', 'api']);
    assert.equal(body.trial_eligible, false);
    const trialEnd = Date.parse(body.subscription.trial_end);
    assert.ok(Math.abs(trialEnd - Date.now() - 14 * DAY_MS) < 60_000, body.subscription.trial_end);

    const id = String(
      (await simulatorClient(t).checkout.sessions.retrieve(session.id)).subscription,
    );
    assert.equal((await control(id, 'end-trial')).status, 200);
    body = await until(
      () => summary('trial-ann'),
      (s) => s.tier === 'free',
    );
    assert.deepEqual(
      [body.subscription.status, body.features, body.trial_eligible],
      ['canceled', ['core'], false],
    );
    offersNoTrial((await checkoutPage('trial-ann')).page);
  });

  test('a subscription made at the provider directly, in any status, counts: its webhook marks the user', async () => {
    const me = await summary('trial-bea');
    assert.equal(me.trial_eligible, true);
    const { id: userId } = (
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/users/me',
        headers: bearer(await t.token('trial-bea')),
      })
    ).json();
    const stripe = simulatorClient(t);
    const customer = await stripe.customers.create({ email: 'trial-bea@example.com' });
    await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: 'price_sim_pro' }],
      payment_behavior: 'default_incomplete',
      metadata: { user_id: userId },
    });
    const body = await until(
      () => summary('trial-bea'),
      (s) => s.subscription !== null,
    );
    assert.deepEqual(
      [body.subscription.status, body.tier, body.trial_eligible],
      ['incomplete', 'free', false],
    );
    offersNoTrial((await checkoutPage('trial-bea')).page);
  });

  test('a subscription an operator reads back (a linked customer, sync-user) counts too', async () => {
    const { store, payments } = t.composition;
    const user = await store.users.upsertByIdpId('trial-cid', 'trial-cid@example.com');
    const stripe = simulatorClient(t);
    // Made elsewhere, naming no user: its webhook finds nobody and stores nothing.
    const customer = await stripe.customers.create({ email: 'trial-cid@example.com' });
    await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: 'price_sim_pro' }],
      trial_period_days: 30,
    });
    await allDelivered(stripe); // its events were answered: the webhook had its chance
    assert.equal((await summary('trial-cid')).trial_eligible, true);
    await store.users.linkCustomer(user.id, customer.id);
    await syncUser(
      { store, payments, policy: tierPolicy(t.config), log: t.composition.logger },
      'trial-cid',
    );
    const body = await summary('trial-cid');
    assert.deepEqual(
      [body.subscription.status, body.tier, body.trial_eligible],
      ['trialing', 'pro', false],
    );
  });

  test('whatever writes a subscription, its user is marked (and the user it moves to)', async () => {
    const { store } = t.composition;
    const first = await store.users.upsertByIdpId('trial-dan', 'trial-dan@example.com');
    const second = await store.users.upsertByIdpId('trial-eve', 'trial-eve@example.com');
    const state = {
      id: 'sub_written_directly',
      customerId: 'cus_elsewhere',
      owner: { type: 'user' as const, id: first.id },
      status: 'canceled' as const,
      priceId: 'price_sim_pro',
      itemId: null,
      quantity: null,
      cancelAtPeriodEnd: false,
      cancelAt: null,
      currentPeriodEnd: null,
      trialEnd: null,
      createdAt: new Date('2025-01-02T03:04:05Z'),
      paymentFailedAt: null,
      asOf: 1,
    };
    // Every writer (an event, a read, a listing, the seat engine) follows its write with subscriptionWritten.
    const telling = { policy: tierPolicy(t.config), cause: null, now: new Date() };
    await store.transaction(async (tx) => {
      assert.equal(await tx.subscriptions.insert(state), true);
      await subscriptionWritten(tx, { before: null, after: state }, telling);
    });
    assert.equal((await summary('trial-dan')).trial_eligible, false);
    assert.deepEqual(
      (await store.users.findById(first.id))?.firstSubscriptionAt,
      new Date('2025-01-02T03:04:05Z'),
    );
    assert.equal((await summary('trial-eve')).trial_eligible, true);
    await store.transaction(async (tx) => {
      const stored = await tx.subscriptions.findForUpdate(state.id);
      const moved = { ...state, owner: { type: 'user' as const, id: second.id }, asOf: 2 };
      await tx.subscriptions.update(moved);
      await subscriptionWritten(tx, { before: stored, after: moved }, telling);
    });
    assert.equal((await summary('trial-eve')).trial_eligible, false);
    assert.equal((await summary('trial-dan')).trial_eligible, false, 'never cleared');
  });
});
