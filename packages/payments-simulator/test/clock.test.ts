// One clock per customer: Renew, Fail renewal and End period move the customer's time to the
// boundary they reach, and what is made or changed for that customer after is stamped on that time
// (cancellations, payments, portal sessions), as the objects on a Stripe test clock are stamped
// with its frozen_time; another customer stays on real time, and an event stays dated when it is
// sent, as Stripe's are. The clocks survive a restart on the same database.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import {
  control,
  databaseLabel,
  openCheckout,
  pay,
  startSimulator,
  startStack,
  sdk,
  type SimulatorStack,
} from './harness.ts';

describe(`one clock (${databaseLabel})`, () => {
  let stack: SimulatorStack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  async function subscribed(user: string): Promise<Stripe.Subscription> {
    const { session } = await openCheckout(stack.stripe, user);
    await pay(stack.simulator, session.id);
    const id = (await stack.stripe.checkout.sessions.retrieve(session.id)).subscription as string;
    return stack.stripe.subscriptions.retrieve(id);
  }
  const periodOf = (subscription: Stripe.Subscription) => subscription.items.data[0]!;

  test('after a renewal, a cancellation is dated in the new period, its event when it was sent', async () => {
    const first = await subscribed('clock-cancel');
    const renewed = (await control(stack.simulator, first.id, 'renew')).body.subscription;
    const start = periodOf(renewed).current_period_start;
    assert.equal(start, periodOf(first).current_period_end);
    const canceled = (await control(stack.simulator, first.id, 'cancel-now')).body;
    assert.ok(canceled.subscription.canceled_at! >= start, 'canceled after the renewal');
    assert.ok(canceled.subscription.ended_at! >= start);
    const event = await stack.stripe.events.retrieve(canceled.events.at(-1)!.id);
    assert.ok(event.created <= Math.ceil(Date.now() / 1000), 'the event is dated when it is sent');
  });

  test('a failed renewal paid later is paid after the invoice is dated', async () => {
    const first = await subscribed('clock-retry');
    const failed = (await control(stack.simulator, first.id, 'fail-renewal')).body;
    const paid = (await control(stack.simulator, first.id, 'renew')).body.invoice!;
    assert.equal(paid.id, failed.invoice!.id);
    assert.ok(paid.status_transitions.paid_at! >= paid.created, 'paid after it was made');
  });

  test('End period ends the subscription at its scheduled end; another customer keeps real time', async () => {
    const first = await subscribed('clock-end');
    await control(stack.simulator, first.id, 'schedule-cancel');
    const ended = (await control(stack.simulator, first.id, 'renew')).body.subscription;
    assert.equal(ended.ended_at, periodOf(first).current_period_end);
    const portal = await stack.stripe.billingPortal.sessions.create({
      customer: String(first.customer),
    });
    assert.ok(portal.created >= ended.ended_at!, "the customer's portal comes after");
    const other = await stack.stripe.customers.create({ email: 'other@example.com' });
    assert.ok(other.created <= Math.ceil(Date.now() / 1000), 'a new customer is on real time');
  });

  test('the clock survives a restart on the same database', async () => {
    const first = await subscribed('clock-restart');
    const renewed = (await control(stack.simulator, first.id, 'renew')).body.subscription;
    const again = await startSimulator(stack.database.db);
    try {
      const canceled = await sdk(again).subscriptions.cancel(first.id);
      assert.ok(canceled.canceled_at! >= periodOf(renewed).current_period_start);
    } finally {
      await again.close();
    }
  });
});
