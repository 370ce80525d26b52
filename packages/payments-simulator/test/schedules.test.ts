// Subscription schedules through the official SDK, as the pinned API version has them: made from a
// subscription (one phase, its current period), their phases updated (`duration` taken,
// `iterations` an unknown parameter since 2025-09-30.clover), the next phase starting with the
// period the dashboard's End period (Renew) begins, then released; released or canceled by a
// request; and a subscription a schedule manages refusing a change of its cancellation with
// Stripe's words, while DELETE cancels it with its schedule.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import {
  control,
  databaseLabel,
  openCheckout,
  pay,
  PRICES_BY_MONTH_AND_YEAR,
  startStack,
  type SimulatorStack,
  onceInTheSuite,
} from './harness.ts';
import { markerDelivered } from './marker.ts';

describe(`subscription schedules (${databaseLabel})`, onceInTheSuite, () => {
  let stack: SimulatorStack;
  before(async () => {
    stack = await startStack({ prices: PRICES_BY_MONTH_AND_YEAR });
  });
  after(() => stack.close());

  async function subscribed(userId: string, price = 'price_sim_team') {
    const { session } = await openCheckout(stack.stripe, userId, price);
    await pay(stack.simulator, session.id);
    const id = (await stack.stripe.checkout.sessions.retrieve(session.id)).subscription as string;
    return stack.stripe.subscriptions.retrieve(id);
  }
  /** How many events arrived, once all those sent so far did (the marker lands after them). */
  const settled = async () => {
    await markerDelivered(stack);
    return stack.receiver.events.length;
  };
  const eventsAfter = async (start: number, count: number) => {
    await stack.receiver.waitFor(start + count);
    return stack.receiver.events.slice(start);
  };
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: Stripe.errors.StripeError) => ({
        status: error.statusCode,
        code: error.code,
        param: error.param,
        message: error.message,
      }),
    );

  /** A schedule from the subscription, with a second phase on `price` from its period's end. */
  async function downgradeAtPeriodEnd(subscription: Stripe.Subscription, price: string) {
    const schedule = await stack.stripe.subscriptionSchedules.create({
      from_subscription: subscription.id,
    });
    const [current] = schedule.phases;
    return stack.stripe.subscriptionSchedules.update(schedule.id, {
      phases: [
        {
          start_date: current!.start_date,
          end_date: current!.end_date,
          items: [{ price: String(current!.items[0]!.price), quantity: 1 }],
        },
        { items: [{ price, quantity: 1 }], duration: { interval: 'month' } },
      ],
    });
  }

  test('from_subscription: one phase, the current period; the subscription gets `schedule`; nothing else may be set with it', async () => {
    const subscription = await subscribed('schedule-from');
    const start = await settled();
    const schedule = await stack.stripe.subscriptionSchedules.create({
      from_subscription: subscription.id,
      metadata: { made_by: 'test' },
    });
    const item = subscription.items.data[0]!;
    assert.match(schedule.id, /^sub_sched_/);
    assert.deepEqual(
      [schedule.status, schedule.end_behavior, schedule.subscription, schedule.customer],
      ['active', 'release', subscription.id, subscription.customer],
    );
    assert.deepEqual(schedule.metadata, { made_by: 'test' });
    assert.deepEqual(schedule.current_phase, {
      start_date: item.current_period_start,
      end_date: item.current_period_end,
    });
    assert.deepEqual(
      schedule.phases.map((p) => [
        p.start_date,
        p.end_date,
        p.items[0]!.price,
        p.items[0]!.quantity,
      ]),
      [[item.current_period_start, item.current_period_end, 'price_sim_team', 1]],
    );
    const events = await eventsAfter(start, 2);
    assert.deepEqual(
      events.map((e) => e.type),
      ['subscription_schedule.created', 'customer.subscription.updated'],
    );
    assert.equal((events[1]!.data.object as Stripe.Subscription).schedule, schedule.id);
    assert.deepEqual(events[1]!.data.previous_attributes, { schedule: null });
    const read = await stack.stripe.subscriptions.retrieve(subscription.id, {
      expand: ['schedule'],
    });
    assert.equal((read.schedule as Stripe.SubscriptionSchedule).id, schedule.id);

    assert.deepEqual(
      await refusal(
        stack.stripe.subscriptionSchedules.create({
          from_subscription: subscription.id,
          end_behavior: 'cancel',
        }),
      ),
      {
        status: 400,
        code: undefined,
        param: 'end_behavior',
        message: 'You cannot set `end_behavior` if `from_subscription` is set.',
      },
    );
    const listed = await stack.stripe.subscriptionSchedules.list({
      customer: String(subscription.customer),
    });
    assert.deepEqual(
      listed.data.map((s) => s.id),
      [schedule.id],
    );
  });

  test('a second phase on another price: End period starts it, the subscription changes price, the schedule is released', async () => {
    const subscription = await subscribed('schedule-downgrade');
    const item = subscription.items.data[0]!;
    const schedule = await downgradeAtPeriodEnd(subscription, 'price_sim_pro');
    assert.deepEqual(
      schedule.phases.map((p) => [p.start_date, p.items[0]!.price]),
      [
        [item.current_period_start, 'price_sim_team'],
        [item.current_period_end, 'price_sim_pro'],
      ],
    );
    assert.equal(
      (await stack.stripe.subscriptions.retrieve(subscription.id)).items.data[0]!.price.id,
      'price_sim_team',
      'the current phase keeps the price',
    );

    const start = await settled();
    const renewed = await control(stack.simulator, subscription.id, 'renew');
    assert.deepEqual(
      renewed.body.events.map((e) => e.type),
      [
        'subscription_schedule.updated',
        'subscription_schedule.released',
        'invoice.paid',
        'customer.subscription.updated',
      ],
    );
    const events = await eventsAfter(start, 4);
    const moved = events[0]!.data.object as Stripe.SubscriptionSchedule;
    assert.deepEqual(moved.current_phase, {
      start_date: item.current_period_end,
      end_date: schedule.phases[1]!.end_date,
    });
    const done = events[1]!.data.object as Stripe.SubscriptionSchedule;
    assert.deepEqual(
      [done.status, done.subscription, done.released_subscription, done.released_at],
      ['released', null, subscription.id, item.current_period_end],
    );
    const invoice = events[2]!.data.object as Stripe.Invoice;
    assert.deepEqual(
      invoice.lines.data.map((line) => [line.amount, line.pricing?.price_details?.price]),
      [[1500, 'price_sim_pro']],
    );
    const now = events[3]!.data.object as Stripe.Subscription;
    const previous = events[3]!.data.previous_attributes as Partial<Stripe.Subscription>;
    assert.deepEqual([now.items.data[0]!.price.id, now.schedule], ['price_sim_pro', null]);
    assert.deepEqual(
      [previous.items!.data[0]!.price.id, previous.schedule],
      ['price_sim_team', schedule.id],
    );
    assert.equal(
      (await stack.stripe.subscriptionSchedules.retrieve(schedule.id)).status,
      'released',
    );
  });

  test('phases: iterations is an unknown parameter (removed in 2025-09-30.clover); end_date with duration refused', async () => {
    const subscription = await subscribed('schedule-iterations');
    const schedule = await stack.stripe.subscriptionSchedules.create({
      from_subscription: subscription.id,
    });
    const phase = schedule.phases[0]!;
    const form = `phases[0][start_date]=${phase.start_date}&phases[0][items][0][price]=price_sim_team&phases[0][iterations]=1`;
    const response = await fetch(
      `${stack.simulator.url}/v1/subscription_schedules/${schedule.id}`,
      {
        method: 'POST',
        headers: {
          authorization: 'Bearer sk_test_simulator',
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: form,
      },
    );
    assert.equal(response.status, 400);
    assert.deepEqual((await response.json()).error, {
      type: 'invalid_request_error',
      message: 'Received unknown parameter: phases[0][iterations]',
      param: 'phases[0][iterations]',
      code: 'parameter_unknown',
      doc_url: 'https://stripe.com/docs/error-codes/parameter-unknown',
    });
    const both = await refusal(
      stack.stripe.subscriptionSchedules.update(schedule.id, {
        phases: [
          {
            start_date: phase.start_date,
            end_date: phase.end_date,
            duration: { interval: 'month' },
            items: [{ price: 'price_sim_team' }],
          },
        ],
      }),
    );
    assert.deepEqual([both?.status, both?.param], [400, 'phases[0][end_date]']);
  });

  test("a subscription a schedule manages: a change of its cancellation is refused with Stripe's words; DELETE cancels it and its schedule", async () => {
    const subscription = await subscribed('schedule-cancel');
    const schedule = await downgradeAtPeriodEnd(subscription, 'price_sim_pro');
    const words = `The subscription is managed by the subscription schedule \`${schedule.id}\`, and updating any cancelation behavior directly is not allowed. Please update the schedule instead.`;
    for (const params of [{ cancel_at_period_end: true }, { cancel_at: 'max_period_end' as const }])
      assert.deepEqual(await refusal(stack.stripe.subscriptions.update(subscription.id, params)), {
        status: 400,
        code: undefined,
        param: undefined,
        message: words,
      });
    const start = await settled();
    const canceled = await stack.stripe.subscriptions.cancel(subscription.id);
    assert.equal(canceled.status, 'canceled');
    const events = await eventsAfter(start, 2);
    assert.deepEqual(
      events.map((e) => e.type),
      ['subscription_schedule.canceled', 'customer.subscription.deleted'],
    );
    const ended = await stack.stripe.subscriptionSchedules.retrieve(schedule.id);
    assert.equal(ended.status, 'canceled');
    assert.ok(ended.canceled_at);
  });

  test('release by request: released, the subscription keeps its price and loses its schedule', async () => {
    const subscription = await subscribed('schedule-release');
    const schedule = await downgradeAtPeriodEnd(subscription, 'price_sim_pro');
    const start = await settled();
    const released = await stack.stripe.subscriptionSchedules.release(schedule.id);
    assert.deepEqual(
      [released.status, released.subscription, released.released_subscription],
      ['released', null, subscription.id],
    );
    const events = await eventsAfter(start, 2);
    assert.deepEqual(
      events.map((e) => e.type),
      ['subscription_schedule.released', 'customer.subscription.updated'],
    );
    const now = await stack.stripe.subscriptions.retrieve(subscription.id);
    assert.deepEqual([now.schedule, now.items.data[0]!.price.id], [null, 'price_sim_team']);
    const again = await refusal(stack.stripe.subscriptionSchedules.release(schedule.id));
    assert.equal(again?.status, 400);
  });

  test('cancel by request: the schedule and its subscription end now', async () => {
    const subscription = await subscribed('schedule-cancel-request');
    const schedule = await stack.stripe.subscriptionSchedules.create({
      from_subscription: subscription.id,
    });
    const canceled = await stack.stripe.subscriptionSchedules.cancel(schedule.id);
    assert.equal(canceled.status, 'canceled');
    assert.equal((await stack.stripe.subscriptions.retrieve(subscription.id)).status, 'canceled');
  });

  test("end_behavior=cancel: the subscription is set to cancel at the last phase's end; End period ends it and completes the schedule", async () => {
    const subscription = await subscribed('schedule-end-cancel');
    const schedule = await stack.stripe.subscriptionSchedules.create({
      from_subscription: subscription.id,
    });
    const updated = await stack.stripe.subscriptionSchedules.update(schedule.id, {
      end_behavior: 'cancel',
    });
    assert.equal(updated.end_behavior, 'cancel');
    const set = await stack.stripe.subscriptions.retrieve(subscription.id);
    assert.equal(set.cancel_at, schedule.phases[0]!.end_date);
    const start = await settled();
    await control(stack.simulator, subscription.id, 'renew');
    const events = await eventsAfter(start, 2);
    assert.deepEqual(
      events.map((e) => e.type),
      ['subscription_schedule.completed', 'customer.subscription.deleted'],
    );
    assert.equal(
      (await stack.stripe.subscriptionSchedules.retrieve(schedule.id)).status,
      'completed',
    );
  });
});
