// A backlog of late events (an outage, a replay): the real simulator holds the subscriptions and
// their whole history, the service hears of none of it until the backlog arrives shuffled, with
// duplicates, several at a time. Every subscription must end in the provider's final state, with
// at most one provider read per subscription. And the ordering guard runs on the provider's clock
// (the Date of its answers), not ours: here the provider's clock is an hour behind.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import type { TestApp } from '../helpers/app.ts';
import { payWhileUnreachable, tierOf } from '../helpers/cli.ts';
import { databaseLabel } from '../helpers/database.ts';
import { deliver, eventOf, invoiceObject, subscriptionObject } from '../helpers/stripe-fixtures.ts';
import {
  buildAppWithFaultyProvider,
  PROVIDER_API_KEY,
  type AppWithFaultyProvider,
  type FaultyProvider,
} from '../helpers/faulty-provider.ts';

const SUBSCRIBERS = 4;
const LIFECYCLE = [
  'cancel-at-period-end',
  'resume-at-period-end',
  'fail-renewal',
  'renew',
  'cancel-at-period-end',
];

describe(`a backlog of late events (${databaseLabel})`, () => {
  let stack: AppWithFaultyProvider;
  let provider: FaultyProvider;
  let t: TestApp;
  let direct: Stripe;
  before(async () => {
    stack = await buildAppWithFaultyProvider();
    ({ provider, t, direct } = stack);
  });
  after(() => stack.close());

  const subscriptionReads = () =>
    provider.front.requests.filter(
      (r) => r.method === 'GET' && /^\/v1\/subscriptions\/sub_/.test(r.path),
    ).length;
  const stored = async (id: string) =>
    (
      await t.composition.db.query<{
        status: string;
        price_id: string;
        cancel_at_period_end: boolean;
      }>('SELECT status, price_id, cancel_at_period_end FROM subscriptions WHERE id = $1', [id])
    )[0];

  async function subscribeUnheard(sub: string): Promise<Stripe.Subscription> {
    await payWhileUnreachable(t, sub);
    const [user] = await t.composition.db.query<{ payments_customer_id: string }>(
      'SELECT payments_customer_id FROM users WHERE idp_id = $1',
      [sub],
    );
    const [subscription] = (
      await direct.subscriptions.list({ customer: user!.payments_customer_id })
    ).data;
    return subscription!;
  }

  const control = (id: string, action: string) =>
    fetch(`${provider.simulatorUrl}/_sim/subscriptions/${id}/${action}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${PROVIDER_API_KEY}` },
    }).then((r) => assert.equal(r.status, 200));

  test('shuffled, late and same-second events end in the provider state, with one read per subscription', async () => {
    const subscriptions = [];
    for (let i = 0; i < SUBSCRIBERS; i++) {
      const subscription = await subscribeUnheard(`backlog-${i}`);
      for (const action of LIFECYCLE.slice(0, 2 + i)) await control(subscription.id, action);
      subscriptions.push(subscription.id);
    }
    const backlog = await stack.undelivered();
    // Late: every event is older than any read the service can make from now on.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const readsBefore = subscriptionReads();

    const deliveries = [...backlog, ...backlog.filter((_, i) => i % 2 === 0)].sort(
      () => Math.random() - 0.5,
    );
    const answers = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const statuses = [];
        for (let event = deliveries.pop(); event; event = deliveries.pop())
          statuses.push((await deliver(t.app, event)).statusCode);
        return statuses;
      }),
    );
    assert.deepEqual([...new Set(answers.flat())], [200]);

    for (const id of subscriptions) {
      const truth = await direct.subscriptions.retrieve(id);
      assert.deepEqual(
        await stored(id),
        {
          status: truth.status,
          price_id: truth.items.data[0]!.price.id,
          cancel_at_period_end: truth.cancel_at_period_end,
        },
        id,
      );
    }
    const reads = subscriptionReads() - readsBefore;
    assert.ok(
      reads <= subscriptions.length,
      `${reads} provider reads for ${subscriptions.length} subscriptions`,
    );
    const [recorded] = await t.composition.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_events WHERE id = ANY($1)',
      [backlog.map((e) => e.id)],
    );
    assert.equal(recorded!.n, backlog.length);
  });

  test('older than the last read: skipped with no call; newer: applied with no call; same second: read again', async () => {
    provider.front.clockOffsetSeconds = -3600;
    try {
      const subscription = await subscribeUnheard('provider-clock');
      const providerNow = Math.floor(Date.now() / 1000) - 3600;
      const snapshot = (changes: Partial<Stripe.Subscription>) =>
        subscriptionObject({
          id: subscription.id,
          customer: subscription.customer,
          created: subscription.created,
          metadata: subscription.metadata,
          ...changes,
        });
      const readsBefore = subscriptionReads();

      const invoice = eventOf(
        'invoice.paid',
        invoiceObject(subscription.id, String(subscription.customer)),
        { created: providerNow - 30 },
      );
      assert.equal((await deliver(t.app, invoice)).statusCode, 200);
      assert.equal(subscriptionReads() - readsBefore, 1, 'an unknown subscription is read once');
      assert.equal(await tierOf(t, 'provider-clock'), 'pro');

      const stale = eventOf('customer.subscription.updated', snapshot({ status: 'past_due' }), {
        created: providerNow - 10,
      });
      assert.equal((await deliver(t.app, stale)).statusCode, 200);
      assert.equal(
        (await stored(subscription.id))!.status,
        'active',
        'an event older than the read is contained in it',
      );

      const newer = eventOf(
        'customer.subscription.updated',
        snapshot({ cancel_at_period_end: true }),
        { created: providerNow + 10 },
      );
      assert.equal((await deliver(t.app, newer)).statusCode, 200);
      assert.equal(
        (await stored(subscription.id))!.cancel_at_period_end,
        true,
        'an event newer than the read (on the provider clock) applies',
      );
      assert.equal(subscriptionReads() - readsBefore, 1, 'neither asked the provider');

      const sameSecond = eventOf('customer.subscription.updated', snapshot({ status: 'unpaid' }), {
        created: providerNow + 10,
      });
      assert.equal((await deliver(t.app, sameSecond)).statusCode, 200);
      assert.equal(subscriptionReads() - readsBefore, 2, 'a tie is settled by a read');
      assert.deepEqual(await stored(subscription.id), {
        status: 'active',
        price_id: 'price_sim_pro',
        cancel_at_period_end: false,
      });
    } finally {
      provider.front.clockOffsetSeconds = 0;
    }
  });
});
