// The subscription lifecycle controls (/_sim/... and the SDK's update and cancel): each leaves the
// subscription in the state Stripe would and emits the events Stripe would, delivered and signed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import type { PaymentsSimulator } from '../src/index.ts';
import {
  control,
  databaseLabel,
  noticeAt,
  openCheckout,
  pay,
  startStack,
  type Receiver,
  type SimulatorStack,
  onceInTheSuite,
} from './harness.ts';

describe(`subscription lifecycle (${databaseLabel})`, onceInTheSuite, () => {
  let stack: SimulatorStack;
  let simulator: PaymentsSimulator;
  let receiver: Receiver;
  let stripe: Stripe;
  before(async () => {
    stack = await startStack();
    ({ simulator, receiver, stripe } = stack);
  });
  after(() => stack.close());

  async function subscribed(userId: string): Promise<Stripe.Subscription> {
    const { session } = await openCheckout(stripe, userId);
    await pay(simulator, session.id);
    return stripe.subscriptions.retrieve(
      (await stripe.checkout.sessions.retrieve(session.id)).subscription as string,
    );
  }
  /** The events the receiver got since `start`, verified. */
  const since = (start: number) => receiver.events.slice(start);

  test('renew moves to the next period with a paid invoice: invoice.paid, customer.subscription.updated', async () => {
    const before = await subscribed('renew-user');
    const start = receiver.events.length;
    const { status, body } = await control(simulator, before.id, 'renew');
    assert.equal(status, 200);
    assert.deepEqual(
      body.events.map((e) => [e.type, e.delivered]),
      [
        ['invoice.paid', true],
        ['customer.subscription.updated', true],
      ],
    );
    const [paid, updated] = since(start);
    const invoice = paid!.data.object as Stripe.Invoice;
    const subscription = updated!.data.object as Stripe.Subscription;
    assert.equal(invoice.status, 'paid');
    assert.equal(invoice.billing_reason, 'subscription_cycle');
    assert.equal(invoice.parent?.subscription_details?.subscription, before.id);
    assert.equal(subscription.status, 'active');
    assert.equal(
      subscription.items.data[0]!.current_period_start,
      before.items.data[0]!.current_period_end,
    );
    assert.ok(
      subscription.items.data[0]!.current_period_end > before.items.data[0]!.current_period_end,
    );
    assert.equal(subscription.latest_invoice, invoice.id);
    // Stripe makes the renewal at the period's boundary: the button advances the clock to it.
    const ended = before.items.data[0]!;
    assert.equal(invoice.created, ended.current_period_end);
    assert.deepEqual(
      [invoice.period_start, invoice.period_end],
      [ended.current_period_start, ended.current_period_end],
      'the invoice looks back on the period just ended',
    );
    assert.deepEqual(invoice.lines.data[0]!.period, {
      start: subscription.items.data[0]!.current_period_start,
      end: subscription.items.data[0]!.current_period_end,
    });
    const previous = updated!.data.previous_attributes as Partial<Stripe.Subscription>;
    assert.equal(previous.latest_invoice, before.latest_invoice);
    assert.ok(previous.items);
  });

  test('fail renewal makes it past_due with an open invoice; renew then pays that invoice', async () => {
    const before = await subscribed('failing-user');
    let start = receiver.events.length;
    const failed = await control(simulator, before.id, 'fail-renewal');
    assert.equal(failed.status, 200);
    assert.deepEqual(
      since(start).map((e) => e.type),
      ['invoice.payment_failed', 'customer.subscription.updated'],
    );
    const invoice = since(start)[0]!.data.object as Stripe.Invoice;
    const updated = since(start)[1]!;
    assert.equal(invoice.status, 'open');
    assert.equal(invoice.amount_remaining, 1500);
    assert.equal((updated.data.object as Stripe.Subscription).status, 'past_due');
    assert.deepEqual(
      (updated.data.previous_attributes as Partial<Stripe.Subscription>).status,
      'active',
    );
    assert.equal((await stripe.subscriptions.retrieve(before.id)).status, 'past_due');

    start = receiver.events.length;
    const recovered = await control(simulator, before.id, 'renew');
    assert.deepEqual(
      recovered.body.events.map((e) => e.type),
      ['invoice.paid', 'customer.subscription.updated'],
    );
    const paid = since(start)[0]!.data.object as Stripe.Invoice;
    assert.equal(paid.id, invoice.id);
    assert.equal(paid.status, 'paid');
    assert.equal((since(start)[1]!.data.object as Stripe.Subscription).status, 'active');
  });

  test('cancel at period end (control and SDK update) emits customer.subscription.updated; renewing then ends it', async () => {
    const before = await subscribed('leaving-user');
    let start = receiver.events.length;
    const marked = await control(simulator, before.id, 'cancel-at-period-end');
    assert.deepEqual(
      marked.body.events.map((e) => e.type),
      ['customer.subscription.updated'],
    );
    const subscription = since(start)[0]!.data.object as Stripe.Subscription;
    assert.equal(subscription.cancel_at_period_end, true);
    assert.equal(subscription.cancel_at, before.items.data[0]!.current_period_end);
    assert.equal(subscription.status, 'active');
    assert.equal(
      (since(start)[0]!.data.previous_attributes as Partial<Stripe.Subscription>)
        .cancel_at_period_end,
      false,
    );

    const undone = await stripe.subscriptions.update(before.id, { cancel_at_period_end: false });
    assert.equal(undone.cancel_at_period_end, false);
    assert.equal(undone.cancel_at, null);
    const redone = await stripe.subscriptions.update(before.id, {
      cancel_at_period_end: true,
      metadata: { reason: 'too expensive' },
    });
    assert.equal(redone.cancel_at_period_end, true);
    assert.deepEqual(redone.metadata, { user_id: 'leaving-user', reason: 'too expensive' });
    await receiver.waitFor(start + 3);

    start = receiver.events.length;
    const ended = await control(simulator, before.id, 'renew');
    assert.deepEqual(
      ended.body.events.map((e) => e.type),
      ['customer.subscription.deleted'],
    );
    assert.equal((since(start)[0]!.data.object as Stripe.Subscription).status, 'canceled');
  });

  test('cancel now (control) emits customer.subscription.deleted with status canceled', async () => {
    const before = await subscribed('quitting-user');
    const start = receiver.events.length;
    const canceled = await control(simulator, before.id, 'cancel-now');
    assert.equal(canceled.body.subscription.status, 'canceled');
    assert.deepEqual(
      since(start).map((e) => e.type),
      ['customer.subscription.deleted'],
    );
    const subscription = since(start)[0]!.data.object as Stripe.Subscription;
    assert.equal(subscription.status, 'canceled');
    assert.ok(subscription.canceled_at !== null && subscription.ended_at !== null);
    const again = await control(simulator, before.id, 'renew');
    assert.equal(again.status, 400);
  });

  test('DELETE through the SDK cancels now; canceled subscriptions leave the default list', async () => {
    const before = await subscribed('sdk-cancel-user');
    const start = receiver.events.length;
    const canceled = await stripe.subscriptions.cancel(before.id);
    assert.equal(canceled.status, 'canceled');
    await receiver.waitFor(start + 1);
    assert.equal(since(start)[0]!.type, 'customer.subscription.deleted');
    assert.equal(since(start)[0]!.request?.id, canceled.lastResponse.requestId);
    const customer = before.customer as string;
    assert.deepEqual((await stripe.subscriptions.list({ customer })).data, []);
    assert.deepEqual(
      (await stripe.subscriptions.list({ customer, status: 'all' })).data.map((s) => s.id),
      [before.id],
    );
    assert.deepEqual(
      (await stripe.subscriptions.list({ customer, status: 'canceled' })).data.map((s) => s.id),
      [before.id],
    );
  });

  test('an unknown subscription or action is refused', async () => {
    assert.equal((await control(simulator, 'sub_unknown', 'renew')).status, 404);
    const subscription = await subscribed('odd-user');
    assert.equal((await control(simulator, subscription.id, 'explode')).status, 400);
  });

  test('the dashboard lists subscriptions with their buttons, and its buttons act', async () => {
    const subscription = await subscribed('dashboard-user');
    const page = await fetch(`${simulator.url}/`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy')!, /default-src 'none'/);
    const html = await page.text();
    assert.ok(html.includes(subscription.id));
    assert.ok(html.includes('dashboard-user@example.com'));
    for (const action of ['renew', 'fail-renewal', 'cancel-at-period-end', 'cancel-now']) {
      assert.ok(
        html.includes(`action="/dashboard/subscriptions/${subscription.id}/${action}"`),
        action,
      );
    }
    const start = receiver.events.length;
    const click = await fetch(
      `${simulator.url}/dashboard/subscriptions/${subscription.id}/fail-renewal`,
      { method: 'POST', redirect: 'manual' },
    );
    assert.equal(click.status, 303);
    assert.match(
      await noticeAt(click.headers.get('location')!, simulator.url),
      /The renewal payment of \$15\.00 failed: the subscription is past due\./,
    );
    assert.deepEqual(
      since(start).map((e) => e.type),
      ['invoice.payment_failed', 'customer.subscription.updated'],
    );
  });
});
