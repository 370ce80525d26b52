// A downgrade the portal schedules for the period's end (the service's own portal configuration,
// on the embedded simulator): GET /billing/subscription shows it as `pending_change` at once while
// the tier stays, and the tier follows only when End period moves the subscription to the new
// price. The subscription_schedule.* events, delivered again in any order and twice, leave the
// newest word standing: an older event never brings back a change that was released. A change
// that can no longer happen (the subscription not live, ending first, or its time passed while
// its events are late) is not shown.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import { createStripeClient } from '../../src/adapters/payments/stripe-client.ts';
import { bearer, buildTestApp, deliverWebhooks, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { deliver, eventOf } from '../helpers/stripe-fixtures.ts';
import { until } from '../helpers/browser.ts';
import { operatorDeps } from '../helpers/cli.ts';
import { reconcile } from '../../src/domain/billing/reconcile.ts';
import { syncUser } from '../../src/domain/billing/sync-user.ts';

interface Details {
  plan: string | null;
  interval: string | null;
  pending_change: { plan: string | null; interval: string | null; effective_at: string } | null;
}
interface PendingRow {
  price_id: string | null;
  effective_at: Date | null;
  as_of: string;
}
interface Summary {
  tier: string;
  subscription: Details | null;
}

describe(`a pending change (${databaseLabel})`, () => {
  let t: TestApp;
  let stripe: Stripe;
  before(async () => {
    t = await buildTestApp({ BILLING_DEFAULT_PLAN: 'team' });
    await deliverWebhooks(t);
    stripe = createStripeClient(t.config.payments.apiKey, t.composition.simulatorUrl);
  });
  after(() => t.close());

  const post = async (sub: string, path: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api/v1/billing/${path}`,
      headers: bearer(await t.token(sub)),
      payload: {},
    });
  const summary = async (sub: string): Promise<Summary> =>
    (
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/billing/subscription',
        headers: bearer(await t.token(sub)),
      })
    ).json();

  /** Team, paid; the subscription's id. */
  async function subscribedToTeam(sub: string): Promise<string> {
    const { url } = (await post(sub, 'checkout')).json() as { url: string };
    await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    const paid = await until(
      () => summary(sub),
      (s) => s.tier === 'team',
    );
    assert.equal(paid.subscription?.pending_change, null);
    const [subscription] = (await stripe.subscriptions.list({ limit: 1 })).data;
    return subscription!.id;
  }
  async function inPortal(sub: string, action: string, fields: Record<string, string>) {
    const { url } = (await post(sub, 'portal')).json() as { url: string };
    const response = await fetch(`${url}/${action}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    assert.equal(response.status, 303);
  }
  /** Team, paid, then switched to pro in the portal: the subscription's id, and the summary once
   * it shows the pending change. */
  async function downgradePending(sub: string): Promise<{ id: string; shown: Summary }> {
    const id = await subscribedToTeam(sub);
    await inPortal(sub, 'switch', { subscription: id, price: 'price_sim_pro' });
    const shown = await until(
      () => summary(sub),
      (s) => s.subscription?.pending_change !== null,
    );
    return { id, shown };
  }

  test('a downgrade shows at once, keeps the tier until the period ends, then the tier follows', async () => {
    const { id, shown: pending } = await downgradePending('pending-downgrader');
    const periodEnd = (await stripe.subscriptions.retrieve(id)).items.data[0]!.current_period_end;
    assert.equal(pending.tier, 'team', 'the tier waits');
    assert.deepEqual(pending.subscription, {
      ...pending.subscription,
      plan: 'team',
      interval: 'month',
      pending_change: {
        plan: 'pro',
        interval: 'month',
        effective_at: new Date(periodEnd * 1000).toISOString().replace('Z', '+00:00'),
      },
    });

    const ended = await fetch(`${t.composition.simulatorUrl}/_sim/subscriptions/${id}/renew`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.config.payments.apiKey}` },
    });
    assert.equal(ended.status, 200);
    const moved = await until(
      () => summary('pending-downgrader'),
      (s) => s.tier === 'pro' && s.subscription?.pending_change === null,
    );
    assert.equal(moved.subscription?.plan, 'pro');
  });

  test('the schedule events again, in any order and twice: the newest word stands', async () => {
    const id = await subscribedToTeam('pending-reordered');
    await inPortal('pending-reordered', 'switch', { subscription: id, price: 'price_sim_pro' });
    const scheduleId = String((await stripe.subscriptions.retrieve(id)).schedule);
    const active = await stripe.subscriptionSchedules.retrieve(scheduleId);
    await inPortal('pending-reordered', 'keep-plan', { subscription: id });
    const released = await stripe.subscriptionSchedules.retrieve(scheduleId);
    assert.equal(released.status, 'released');
    await until(
      () => summary('pending-reordered'),
      (s) => s.subscription?.pending_change === null,
    );

    const created = eventOf('subscription_schedule.created', active, { created: active.created });
    const release = eventOf('subscription_schedule.released', released, {
      created: released.released_at!,
    });
    for (const event of [release, created, created, release, created]) {
      const response = await deliver(t.app, event);
      assert.equal(response.statusCode, 200, response.body);
    }
    assert.equal((await summary('pending-reordered')).subscription?.pending_change, null);
    assert.equal((await summary('pending-reordered')).tier, 'team');
  });

  test('not shown once it cannot happen: the subscription not live, ending first, or its time past', async () => {
    const { id, shown } = await downgradePending('pending-moot');
    const effectiveAt = shown.subscription!.pending_change!.effective_at;
    // What the stored rows say when an event is late or lost, each undone after its check.
    const states: [set: string, undo: string][] = [
      ["status = 'unpaid'", "status = 'active'"],
      ["status = 'canceled'", "status = 'active'"],
      [`cancel_at = '${effectiveAt}'`, 'cancel_at = NULL'],
      [`cancel_at = timestamptz '${effectiveAt}' - interval '1 day'`, 'cancel_at = NULL'],
      ['cancel_at_period_end = true', 'cancel_at_period_end = false'],
    ];
    for (const [set, undo] of states) {
      await t.composition.db.query(`UPDATE subscriptions SET ${set} WHERE id = $1`, [id]);
      assert.equal((await summary('pending-moot')).subscription?.pending_change, null, set);
      await t.composition.db.query(`UPDATE subscriptions SET ${undo} WHERE id = $1`, [id]);
    }
    await t.composition.db.query(
      `UPDATE subscriptions SET cancel_at = timestamptz '${effectiveAt}' + interval '1 day' WHERE id = $1`,
      [id],
    );
    assert.notEqual(
      (await summary('pending-moot')).subscription?.pending_change,
      null,
      'an end after the change leaves it pending',
    );
    await t.composition.db.query(
      `UPDATE pending_changes SET effective_at = now() - interval '1 minute' WHERE subscription_id = $1`,
      [id],
    );
    assert.equal((await summary('pending-moot')).subscription?.pending_change, null, 'time past');
  });

  /** The stored pending change as if the schedule's events since `stored` were lost. */
  const lose = async (id: string, stored: Partial<PendingRow>) =>
    t.composition.db.query(
      `UPDATE pending_changes SET price_id = $2, effective_at = $3, as_of = as_of - 10, rank = 0
       WHERE subscription_id = $1`,
      [id, stored.price_id ?? null, stored.effective_at ?? null],
    );
  const storedRow = async (id: string) =>
    (
      await t.composition.db.query<PendingRow>(
        'SELECT price_id, effective_at, as_of FROM pending_changes WHERE subscription_id = $1',
        [id],
      )
    )[0]!;

  test("a schedule's events lost: sync-user and the reconciliation read the schedule", async () => {
    const { id, shown } = await downgradePending('pending-lost');
    const active = await storedRow(id);

    await lose(id, {});
    assert.equal((await summary('pending-lost')).subscription?.pending_change, null);
    await syncUser(operatorDeps(t), 'pending-lost');
    assert.deepEqual((await summary('pending-lost')).subscription, shown.subscription, 'sync-user');

    await lose(id, {});
    await reconcile(operatorDeps(t));
    assert.deepEqual((await summary('pending-lost')).subscription, shown.subscription, 'reconcile');

    await inPortal('pending-lost', 'keep-plan', { subscription: id });
    await until(
      () => summary('pending-lost'),
      (s) => s.subscription?.pending_change === null,
    );
    await lose(id, active);
    assert.notEqual((await summary('pending-lost')).subscription?.pending_change, null);
    await reconcile(operatorDeps(t));
    assert.equal((await summary('pending-lost')).subscription?.pending_change, null, 'released');
  });

  test("two schedule events of one second that say otherwise: the provider's schedule decides", async () => {
    const { id, shown } = await downgradePending('pending-tied');
    const scheduleId = String((await stripe.subscriptions.retrieve(id)).schedule);
    const schedule = await stripe.subscriptionSchedules.retrieve(scheduleId);
    const { as_of: asOf } = await storedRow(id);
    // Not the provider's: the same second, its next phase later than the schedule says.
    const [current, next] = schedule.phases;
    const other = {
      ...schedule,
      phases: [current, { ...next, start_date: next!.start_date + 60 }],
    };
    const response = await deliver(
      t.app,
      eventOf('subscription_schedule.updated', other, { created: Number(asOf) }),
    );
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual((await summary('pending-tied')).subscription, shown.subscription);
  });
});
