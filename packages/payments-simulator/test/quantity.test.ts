// Quantities through the official stripe SDK: a checkout for several seats carries its quantity to
// the subscription and the first invoice; POST /v1/subscriptions/:id with items[0][quantity]
// changes the item, sends one customer.subscription.updated with the old items in
// previous_attributes, and prorates as proration_behavior says (pending proration lines billed by
// the next invoice, an invoice at once, or nothing); a repeated Idempotency-Key replays the answer,
// and with other parameters is refused.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Stripe from 'stripe';
import {
  control,
  databaseLabel,
  pay,
  startStack,
  type SimulatorStack,
  onceInTheSuite,
} from './harness.ts';
import { markerDelivered } from './marker.ts';

const TEAM = 4900; // price_sim_team, per seat and month

describe(`subscription quantities (${databaseLabel})`, onceInTheSuite, () => {
  let stack: SimulatorStack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  async function seats(userId: string, quantity: number) {
    const customer = await stack.stripe.customers.create({ email: `${userId}@example.com` });
    const session = await stack.stripe.checkout.sessions.create({
      mode: 'subscription',
      customer: customer.id,
      line_items: [{ price: 'price_sim_team', quantity }],
      success_url: 'https://app.example.test/billing/success',
      cancel_url: 'https://app.example.test/billing/cancel',
    });
    return { customer, session };
  }
  async function subscribed(userId: string, quantity: number) {
    const { customer, session } = await seats(userId, quantity);
    await pay(stack.simulator, session.id);
    const id = (await stack.stripe.checkout.sessions.retrieve(session.id)).subscription as string;
    await markerDelivered(stack); // the checkout's events are in
    return { customer, subscription: await stack.stripe.subscriptions.retrieve(id) };
  }
  /** The `count` events sent from `start` on, a later marker's showing that no more came. */
  async function eventsSince(start: number, count: number): Promise<Stripe.Event[]> {
    await stack.receiver.waitFor(start + count);
    await markerDelivered(stack);
    return stack.receiver.events.slice(start).filter((e) => e.type !== 'customer.updated');
  }
  const itemOf = (subscription: Stripe.Subscription) => subscription.items.data[0]!;
  /** Stripe's proration of `quantity` seats from `at` to the end of the item's period. */
  const prorated = (item: Stripe.SubscriptionItem, quantity: number, at: number) =>
    Math.round(
      (TEAM * quantity * (item.current_period_end - at)) /
        (item.current_period_end - item.current_period_start),
    );

  test('a checkout for 3 seats: the page, the session, the subscription and the first invoice', async () => {
    const { session } = await seats('quantity-checkout', 3);
    assert.equal(session.amount_total, 3 * TEAM);
    const read = await stack.stripe.checkout.sessions.retrieve(session.id, {
      expand: ['line_items'],
    });
    assert.equal(read.line_items!.data[0]!.quantity, 3);
    assert.equal(read.line_items!.data[0]!.amount_total, 3 * TEAM);
    const page = await (await fetch(session.url!)).text();
    assert.match(page, /3 × Team · \$147\.00 per month in total/);
    assert.match(page, /Pay \$147\.00 and subscribe/);

    await pay(stack.simulator, session.id);
    const paid = await stack.stripe.checkout.sessions.retrieve(session.id, {
      expand: ['subscription.latest_invoice'],
    });
    const subscription = paid.subscription as Stripe.Subscription;
    assert.equal(itemOf(subscription).quantity, 3);
    const invoice = subscription.latest_invoice as Stripe.Invoice;
    assert.equal(invoice.amount_paid, 3 * TEAM);
    assert.equal(invoice.lines.data[0]!.quantity, 3);
    assert.equal(invoice.lines.data[0]!.amount, 3 * TEAM);
  });

  test('the dashboard and the portal show the quantity, read-only', async () => {
    const { customer, subscription } = await subscribed('quantity-pages', 4);
    const dashboard = await (await fetch(`${stack.simulator.url}/`)).text();
    const row = dashboard.split('<tr').find((each) => each.includes(subscription.id))!;
    assert.match(row, /4 × Team monthly/);
    const portal = await stack.stripe.billingPortal.sessions.create({ customer: customer.id });
    const page = await (await fetch(portal.url)).text();
    assert.match(page, /Quantity 4 · \$196\.00 per month in total/);
    assert.doesNotMatch(page, /name="quantity"/);
  });

  test('create_prorations: the item changes, one updated event, proration lines on the next invoice', async () => {
    const { subscription } = await subscribed('quantity-prorations', 3);
    const item = itemOf(subscription);
    const start = stack.receiver.events.length;
    const updated = await stack.stripe.subscriptions.update(
      subscription.id,
      { items: [{ id: item.id, quantity: 5 }], proration_behavior: 'create_prorations' },
      { idempotencyKey: 'org-1:seats:rev-1' },
    );
    assert.equal(itemOf(updated).quantity, 5);
    assert.equal(itemOf(updated).id, item.id);
    assert.equal(updated.latest_invoice, subscription.latest_invoice, 'nothing invoiced yet');

    const events = await eventsSince(start, 1);
    assert.deepEqual(
      events.map((e) => e.type),
      ['customer.subscription.updated'],
    );
    const event = events[0]!;
    assert.equal(event.request?.idempotency_key, 'org-1:seats:rev-1');
    assert.equal((event.data.object as Stripe.Subscription).items.data[0]!.quantity, 5);
    const previous = event.data.previous_attributes as Partial<Stripe.Subscription>;
    assert.deepEqual(Object.keys(previous), ['items']);
    assert.equal(previous.items!.data[0]!.quantity, 3);
    assert.equal(previous.items!.data[0]!.id, item.id);

    const { body } = await control(stack.simulator, subscription.id, 'renew');
    const invoice = body.invoice!;
    assert.equal(invoice.billing_reason, 'subscription_cycle');
    const [credit, charge, period] = invoice.lines.data;
    assert.equal(invoice.lines.data.length, 3);
    const at = credit!.period.start;
    assert.deepEqual(
      [credit, charge].map((line) => [
        line!.amount,
        line!.quantity,
        line!.parent?.subscription_item_details?.proration,
        line!.parent?.subscription_item_details?.subscription_item,
        line!.period.end,
      ]),
      [
        [-prorated(item, 3, at), 3, true, item.id, item.current_period_end],
        [prorated(item, 5, at), 5, true, item.id, item.current_period_end],
      ],
    );
    assert.match(credit!.description!, /^Unused time on 3 × Team after /);
    assert.match(charge!.description!, /^Remaining time on 5 × Team after /);
    assert.match(credit!.parent!.subscription_item_details!.invoice_item!, /^ii_/);
    assert.equal(period!.amount, 5 * TEAM);
    assert.equal(period!.parent?.subscription_item_details?.proration, false);
    assert.equal(invoice.total, credit!.amount + charge!.amount + 5 * TEAM);
    assert.deepEqual(
      [invoice.period_start, invoice.period_end],
      [item.current_period_start, item.current_period_end],
      'the renewal looks back on the period just ended',
    );
    assert.equal(period!.period.start, item.current_period_end, 'its line bills the next one');

    const next = (await control(stack.simulator, subscription.id, 'renew')).body.invoice!;
    assert.equal(next.lines.data.length, 1, 'the prorations were billed once');
  });

  test('an Idempotency-Key repeated: the same parameters replay the answer, others are refused', async () => {
    const { subscription } = await subscribed('quantity-idempotent', 2);
    const item = itemOf(subscription);
    const params = { items: [{ id: item.id, quantity: 4 }] };
    const key = { idempotencyKey: 'org-2:seats:rev-7' };
    const earlier = stack.receiver.events.length;
    const first = await stack.stripe.subscriptions.update(subscription.id, params, key);
    await eventsSince(earlier, 1);
    const start = stack.receiver.events.length;
    const again = await stack.stripe.subscriptions.update(subscription.id, params, key);
    assert.equal(again.lastResponse.headers['idempotent-replayed'], 'true');
    assert.deepEqual({ ...again, lastResponse: null }, { ...first, lastResponse: null });
    await assert.rejects(
      stack.stripe.subscriptions.update(
        subscription.id,
        { items: [{ id: item.id, quantity: 5 }] },
        key,
      ),
      (error: Stripe.errors.StripeError) =>
        error.type === 'StripeIdempotencyError' &&
        error.statusCode === 400 &&
        /same parameters/.test(error.message),
    );
    assert.deepEqual(
      await eventsSince(start, 0),
      [],
      'neither the replay nor the refusal sent events',
    );
    const read = await stack.stripe.subscriptions.retrieve(subscription.id);
    assert.equal(itemOf(read).quantity, 4);
  });

  test('always_invoice bills the prorations at once; none bills nothing', async () => {
    const { subscription } = await subscribed('quantity-at-once', 5);
    const item = itemOf(subscription);
    let start = stack.receiver.events.length;
    const cut = await stack.stripe.subscriptions.update(subscription.id, {
      items: [{ id: item.id, quantity: 2 }],
      proration_behavior: 'always_invoice',
      expand: ['latest_invoice'],
    });
    const invoice = cut.latest_invoice as Stripe.Invoice;
    assert.equal(invoice.billing_reason, 'subscription_update');
    const [credit, charge] = invoice.lines.data;
    const at = credit!.period.start;
    assert.deepEqual(
      [credit!.amount, charge!.amount],
      [-prorated(item, 5, at), prorated(item, 2, at)],
    );
    assert.equal(invoice.amount_due, 0, 'a credit is not charged');
    assert.deepEqual(
      (await eventsSince(start, 4)).map((e) => e.type),
      ['customer.subscription.updated', 'invoice.created', 'invoice.finalized', 'invoice.paid'],
    );

    start = stack.receiver.events.length;
    await stack.stripe.subscriptions.update(subscription.id, {
      items: [{ id: item.id, quantity: 3 }],
      proration_behavior: 'none',
    });
    assert.deepEqual(
      (await eventsSince(start, 1)).map((e) => e.type),
      ['customer.subscription.updated'],
    );
    const renewal = (await control(stack.simulator, subscription.id, 'renew')).body.invoice!;
    assert.deepEqual(
      renewal.lines.data.map((line) => line.amount),
      [3 * TEAM],
    );
  });

  test('a new price without a quantity starts at 1, as Stripe does; with one, at that', async () => {
    const { subscription } = await subscribed('quantity-price', 3);
    const item = itemOf(subscription);
    const moved = await stack.stripe.subscriptions.update(subscription.id, {
      items: [{ id: item.id, price: 'price_sim_pro' }],
      proration_behavior: 'none',
    });
    assert.deepEqual([itemOf(moved).price.id, itemOf(moved).quantity], ['price_sim_pro', 1]);
    const back = await stack.stripe.subscriptions.update(subscription.id, {
      items: [{ id: item.id, price: 'price_sim_team', quantity: 6 }],
      proration_behavior: 'none',
    });
    assert.deepEqual([itemOf(back).price.id, itemOf(back).quantity], ['price_sim_team', 6]);
  });

  test('a trial is not prorated: the quantity changes, nothing is pending', async () => {
    const customer = await stack.stripe.customers.create({ email: 'quantity-trial@example.com' });
    const trialing = await stack.stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: 'price_sim_team', quantity: 2 }],
      trial_period_days: 14,
    });
    await stack.stripe.subscriptions.update(trialing.id, {
      items: [{ id: itemOf(trialing).id, quantity: 7 }],
    });
    const { body } = await control(stack.simulator, trialing.id, 'end-trial');
    assert.deepEqual(
      body.invoice!.lines.data.map((line) => [line.quantity, line.amount]),
      [[7, 7 * TEAM]],
    );
  });

  test('bad quantity updates are refused with the parameter named', async () => {
    const { subscription } = await subscribed('quantity-refused', 1);
    const id = itemOf(subscription).id;
    const refusal = (items: Stripe.SubscriptionUpdateParams.Item[], extra = {}) =>
      stack.stripe.subscriptions.update(subscription.id, { items, ...extra }).then(
        () => assert.fail('accepted'),
        (error: Stripe.errors.StripeError) => [error.statusCode, error.type, error.param],
      );
    const invalid = (param: string) => [400, 'StripeInvalidRequestError', param];
    assert.deepEqual(await refusal([{ id, quantity: -1 }]), invalid('items[0][quantity]'));
    assert.deepEqual(await refusal([{ id, quantity: 1.5 }]), invalid('items[0][quantity]'));
    assert.deepEqual(await refusal([{ id: 'si_unknown', quantity: 2 }]), invalid('items[0][id]'));
    assert.deepEqual(await refusal([{ quantity: 2 }]), invalid('items[0][id]'));
    assert.deepEqual(await refusal([{ id, deleted: true }]), invalid('items[0][deleted]'));
    assert.deepEqual(
      await refusal([{ id, quantity: 2 }], { proration_behavior: 'sometimes' }),
      invalid('proration_behavior'),
    );
    assert.equal(itemOf(await stack.stripe.subscriptions.retrieve(subscription.id)).quantity, 1);
  });
});
