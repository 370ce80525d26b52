// One-time prices (credit packs), as Stripe sells them for the pinned API version: a checkout in
// payment mode with one one-time price; paying it by card creates a PaymentIntent and its Charge
// (payment_intent.created, charge.succeeded, payment_intent.succeeded, checkout.session.completed);
// a bank debit completes the session unpaid and settles or fails later
// (checkout.session.async_payment_succeeded / _failed); refunds take back part or all of the
// charge, its amount_refunded the sum so far (refund.created, charge.refunded).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import { decide, PACKS, packCheckout } from './credit-packs.ts';
import { databaseLabel, pay, startStack, type SimulatorStack, onceInTheSuite } from './harness.ts';

describe(`one-time prices (${databaseLabel})`, onceInTheSuite, () => {
  let stack: SimulatorStack;
  before(async () => {
    stack = await startStack({ oneTimePrices: PACKS });
  });
  after(() => stack.close());

  /** The events delivered from `start` on, once `count` of them have arrived. */
  async function eventsFrom(start: number, count: number): Promise<Stripe.Event[]> {
    await stack.receiver.waitFor(start + count);
    return stack.receiver.events.slice(start);
  }
  const objectOf = <T>(event: Stripe.Event | undefined) => event!.data.object as unknown as T;

  test('each pack is a product with a one-time USD price: small 9.00, large 35.00', async () => {
    const small = await stack.stripe.prices.retrieve('price_sim_credits_small', {
      expand: ['product'],
    });
    assert.equal(small.type, 'one_time');
    assert.equal(small.recurring, null);
    assert.equal(small.unit_amount, 900);
    assert.equal(small.currency, 'usd');
    assert.equal((small.product as Stripe.Product).name, 'Credits: small');
    assert.equal((await stack.stripe.prices.retrieve('price_sim_credits_large')).unit_amount, 3500);
    const oneTime = await stack.stripe.prices.list({ type: 'one_time' });
    assert.deepEqual(oneTime.data.map((p) => p.id).sort(), [...PACKS.values()].sort());
  });

  test('a payment-mode session: the price once, no intent until paid; a recurring price is refused', async () => {
    const { customer, session } = await packCheckout(stack.stripe, 'org-open');
    assert.equal(session.mode, 'payment');
    assert.equal(session.status, 'open');
    assert.equal(session.payment_status, 'unpaid');
    assert.equal(session.amount_subtotal, 900);
    assert.equal(session.amount_total, 900);
    assert.equal(session.currency, 'usd');
    assert.equal(session.payment_intent, null);
    assert.equal(session.subscription, null);
    assert.equal(session.invoice, null);
    assert.equal(session.customer, customer.id);
    assert.equal(session.client_reference_id, 'org-open');
    assert.deepEqual(session.metadata, { credit_pack: 'small', org_id: 'org-open' });
    assert.equal(session.url, `${stack.simulator.url}/checkout/${session.id}`);
    const read = await stack.stripe.checkout.sessions.retrieve(session.id, {
      expand: ['line_items'],
    });
    assert.equal(read.line_items?.data[0]?.price?.id, 'price_sim_credits_small');
    assert.equal(read.line_items?.data[0]?.amount_total, 900);

    const refused = (params: Partial<Stripe.Checkout.SessionCreateParams>) =>
      stack.stripe.checkout.sessions.create({
        mode: 'payment',
        line_items: [{ price: 'price_sim_credits_small', quantity: 1 }],
        success_url: 'https://app.example.test/ok',
        ...params,
      });
    await assert.rejects(refused({ line_items: [{ price: 'price_sim_pro', quantity: 1 }] }), {
      type: 'StripeInvalidRequestError',
      message:
        'You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or use only one-time prices.',
      param: 'line_items[0][price]',
    });
    await assert.rejects(refused({ subscription_data: { metadata: { a: 'b' } } }), {
      message: 'You can not pass `subscription_data` in `payment` mode.',
      param: 'subscription_data',
    });
    await assert.rejects(refused({ mode: 'subscription' }), {
      message:
        'You must provide at least one recurring price in `subscription` mode when using prices.',
    });
    const expired = await stack.stripe.checkout.sessions.expire(session.id);
    assert.equal(expired.status, 'expired');
  });

  test('paid by card: a succeeded PaymentIntent and Charge, then the three events in order', async () => {
    const { customer, session } = await packCheckout(stack.stripe, 'org-card');
    const start = stack.receiver.events.length;
    const response = await pay(stack.simulator, session.id);
    assert.equal(response.status, 303);
    assert.equal(
      response.headers.get('location'),
      `https://app.example.test/credits/success?session_id=${session.id}`,
    );
    const events = await eventsFrom(start, 4);
    assert.deepEqual(
      events.map((e) => e.type),
      [
        'payment_intent.created',
        'charge.succeeded',
        'payment_intent.succeeded',
        'checkout.session.completed',
      ],
    );
    const charge = objectOf<Stripe.Charge>(events[1]);
    const intent = objectOf<Stripe.PaymentIntent>(events[2]);
    const completed = objectOf<Stripe.Checkout.Session>(events[3]);
    assert.equal(objectOf<Stripe.PaymentIntent>(events[0]).status, 'requires_payment_method');
    assert.match(intent.id, /^pi_\w+$/);
    assert.equal(intent.status, 'succeeded');
    assert.equal(intent.amount, 900);
    assert.equal(intent.amount_received, 900);
    assert.equal(intent.currency, 'usd');
    assert.equal(intent.customer, customer.id);
    assert.deepEqual(intent.metadata, { credit_pack: 'small', org_id: 'org-card' });
    assert.equal(intent.latest_charge, charge.id);
    assert.match(charge.id, /^ch_\w+$/);
    assert.equal(charge.payment_intent, intent.id);
    assert.equal(charge.amount, 900);
    assert.equal(charge.amount_captured, 900);
    assert.equal(charge.amount_refunded, 0);
    assert.equal(charge.refunded, false);
    assert.equal(charge.paid, true);
    assert.equal(charge.status, 'succeeded');
    assert.equal(charge.customer, customer.id);
    assert.deepEqual(charge.metadata, intent.metadata);
    assert.equal('refunds' in charge, false, 'refunds are listed only when expanded');
    assert.equal(completed.status, 'complete');
    assert.equal(completed.payment_status, 'paid');
    assert.equal(completed.payment_intent, intent.id);
    assert.equal(completed.subscription, null);
    assert.equal(completed.invoice, null);
    assert.deepEqual(completed.metadata, { credit_pack: 'small', org_id: 'org-card' });

    const read = await stack.stripe.checkout.sessions.retrieve(session.id, {
      expand: ['payment_intent.latest_charge'],
    });
    const expanded = read.payment_intent as Stripe.PaymentIntent;
    assert.equal((expanded.latest_charge as Stripe.Charge).id, charge.id);
    assert.deepEqual(await stack.stripe.charges.retrieve(charge.id), charge);
    assert.deepEqual(await stack.stripe.paymentIntents.retrieve(intent.id), intent);
    const made = await stack.stripe.checkout.sessions.list({ payment_intent: intent.id });
    assert.deepEqual(
      made.data.map((s) => s.id),
      [session.id],
    );
    const byCustomer = await stack.stripe.paymentIntents.list({ customer: customer.id });
    assert.deepEqual(
      byCustomer.data.map((p) => p.id),
      [intent.id],
    );
    assert.equal((await stack.stripe.invoices.list({ customer: customer.id })).data.length, 0);
    assert.equal((await stack.stripe.subscriptions.list({ customer: customer.id })).data.length, 0);
  });

  test('a bank debit completes the session unpaid and processing; settling it pays the session', async () => {
    const { session } = await packCheckout(stack.stripe, 'org-bank', 'price_sim_credits_large');
    let start = stack.receiver.events.length;
    await pay(stack.simulator, session.id, 'payment_method_type=us_bank_account');
    let events = await eventsFrom(start, 4);
    assert.deepEqual(
      events.map((e) => e.type),
      [
        'payment_intent.created',
        'charge.pending',
        'payment_intent.processing',
        'checkout.session.completed',
      ],
    );
    const intent = objectOf<Stripe.PaymentIntent>(events[2]);
    assert.equal(intent.status, 'processing');
    assert.equal(intent.amount, 3500);
    assert.equal(intent.amount_received, 0);
    const pending = objectOf<Stripe.Charge>(events[1]);
    assert.equal(pending.status, 'pending');
    assert.equal(pending.paid, false);
    assert.equal(pending.payment_method_details?.type, 'us_bank_account');
    const completed = objectOf<Stripe.Checkout.Session>(events[3]);
    assert.equal(completed.status, 'complete');
    assert.equal(completed.payment_status, 'unpaid');
    assert.equal(completed.payment_intent, intent.id);

    start = stack.receiver.events.length;
    const settled = await decide(stack.simulator.url, intent.id, 'settle');
    assert.equal(settled.status, 200);
    events = await eventsFrom(start, 3);
    assert.deepEqual(
      events.map((e) => e.type),
      ['charge.succeeded', 'payment_intent.succeeded', 'checkout.session.async_payment_succeeded'],
    );
    assert.equal(objectOf<Stripe.Charge>(events[0]).status, 'succeeded');
    assert.equal(objectOf<Stripe.Charge>(events[0]).paid, true);
    assert.equal(objectOf<Stripe.PaymentIntent>(events[1]).status, 'succeeded');
    assert.equal(objectOf<Stripe.PaymentIntent>(events[1]).amount_received, 3500);
    const paid = objectOf<Stripe.Checkout.Session>(events[2]);
    assert.equal(paid.payment_status, 'paid');
    assert.equal(
      (await stack.stripe.checkout.sessions.retrieve(session.id)).payment_status,
      'paid',
    );
    // Settled once: a second decision is refused.
    assert.equal((await decide(stack.simulator.url, intent.id, 'fail')).status, 400);
  });

  test('a bank debit that fails: the session stays unpaid, the intent wants another payment method', async () => {
    const { session } = await packCheckout(stack.stripe, 'org-returned');
    await pay(stack.simulator, session.id, 'payment_method_type=us_bank_account');
    const intentId = (await stack.stripe.checkout.sessions.retrieve(session.id))
      .payment_intent as string;
    const start = stack.receiver.events.length;
    const failed = await decide(stack.simulator.url, intentId, 'fail');
    assert.equal(failed.status, 200);
    const events = await eventsFrom(start, 3);
    assert.deepEqual(
      events.map((e) => e.type),
      ['charge.failed', 'payment_intent.payment_failed', 'checkout.session.async_payment_failed'],
    );
    const intent = objectOf<Stripe.PaymentIntent>(events[1]);
    assert.equal(intent.status, 'requires_payment_method');
    assert.equal(intent.last_payment_error?.code, 'insufficient_funds');
    assert.equal(objectOf<Stripe.Charge>(events[0]).status, 'failed');
    assert.equal(objectOf<Stripe.Checkout.Session>(events[2]).payment_status, 'unpaid');
    assert.equal(
      (await stack.stripe.checkout.sessions.retrieve(session.id)).payment_status,
      'unpaid',
    );
    await assert.rejects(stack.stripe.refunds.create({ payment_intent: intentId }), {
      param: 'payment_intent',
    });
  });

  test('three refunds of 300 of 900: refund.created and charge.refunded each, amount_refunded adding up', async () => {
    const { session } = await packCheckout(stack.stripe, 'org-refunds');
    await pay(stack.simulator, session.id);
    const read = await stack.stripe.checkout.sessions.retrieve(session.id, {
      expand: ['payment_intent'],
    });
    const intent = read.payment_intent as Stripe.PaymentIntent;
    const chargeId = intent.latest_charge as string;
    const refunded: number[] = [];
    for (const by of ['payment_intent', 'charge', 'payment_intent'] as const) {
      const start = stack.receiver.events.length;
      const refund = await stack.stripe.refunds.create({
        ...(by === 'charge' ? { charge: chargeId } : { payment_intent: intent.id }),
        amount: 300,
      });
      assert.match(refund.id, /^re_\w+$/);
      assert.equal(refund.amount, 300);
      assert.equal(refund.charge, chargeId);
      assert.equal(refund.payment_intent, intent.id);
      assert.equal(refund.status, 'succeeded');
      assert.deepEqual(await stack.stripe.refunds.retrieve(refund.id), refund);
      const events = await eventsFrom(start, 2);
      assert.deepEqual(
        events.map((e) => e.type),
        ['refund.created', 'charge.refunded'],
      );
      assert.equal(objectOf<Stripe.Refund>(events[0]).id, refund.id);
      const charge = objectOf<Stripe.Charge>(events[1]);
      assert.equal(charge.id, chargeId);
      assert.equal(charge.amount, 900);
      assert.equal('refunds' in charge, false);
      refunded.push(charge.amount_refunded);
      assert.equal(charge.refunded, charge.amount_refunded === 900);
    }
    assert.deepEqual(refunded, [300, 600, 900]);
    const charge = await stack.stripe.charges.retrieve(chargeId, { expand: ['refunds'] });
    assert.equal(charge.refunded, true);
    assert.deepEqual(
      charge.refunds?.data.map((r) => r.amount),
      [300, 300, 300],
    );
    const listed = await stack.stripe.refunds.list({ payment_intent: intent.id });
    assert.equal(listed.data.length, 3);
    await assert.rejects(stack.stripe.refunds.create({ charge: chargeId }), {
      message: `Charge ${chargeId} has already been refunded.`,
      code: 'charge_already_refunded',
    });
  });

  test("a refund of more than is left is refused with Stripe's words; by default all that is left", async () => {
    const { session } = await packCheckout(stack.stripe, 'org-over');
    await pay(stack.simulator, session.id);
    const intentId = (await stack.stripe.checkout.sessions.retrieve(session.id))
      .payment_intent as string;
    await stack.stripe.refunds.create({ payment_intent: intentId, amount: 500 });
    await assert.rejects(stack.stripe.refunds.create({ payment_intent: intentId, amount: 401 }), {
      type: 'StripeInvalidRequestError',
      message: 'Refund amount ($4.01) is greater than unrefunded amount on charge ($4.00)',
      param: 'amount',
    });
    const rest = await stack.stripe.refunds.create({ payment_intent: intentId });
    assert.equal(rest.amount, 400);
    const charge = await stack.stripe.charges.retrieve(rest.charge as string);
    assert.equal(charge.amount_refunded, 900);
    assert.equal(charge.refunded, true);
    await assert.rejects(
      stack.stripe.refunds.create({ amount: 100 } as Stripe.RefundCreateParams),
      {
        message:
          'One of the following params should be provided for this request: payment_intent or charge.',
      },
    );
  });
});
