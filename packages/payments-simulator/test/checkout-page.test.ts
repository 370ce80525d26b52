// The hosted checkout page: a real page with the price and a Pay button; paying delivers
// checkout.session.completed, customer.subscription.created and invoice.paid, signed so the stripe
// SDK's own constructEvent accepts them, then redirects to success_url with the session id.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import type { PaymentsSimulator } from '../src/index.ts';
import {
  databaseLabel,
  openCheckout,
  openTestDb,
  pay,
  sdk,
  SECRET,
  startReceiver,
  startSimulator,
  startStack,
  type Receiver,
  type SimulatorStack,
} from './harness.ts';

describe(`hosted checkout page (${databaseLabel})`, () => {
  let stack: SimulatorStack;
  let simulator: PaymentsSimulator;
  let receiver: Receiver;
  let stripe: Stripe;
  before(async () => {
    stack = await startStack();
    ({ simulator, receiver, stripe } = stack);
  });
  after(() => stack.close());

  test('shows the product, the monthly price, a Pay form and a Cancel form, with security headers', async () => {
    const { session } = await openCheckout(stripe, 'page-user', 'price_sim_team');
    const response = await fetch(session.url!);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type')!, /^text\/html/);
    const csp = response.headers.get('content-security-policy')!;
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /style-src 'unsafe-inline'/);
    assert.match(csp, /form-action 'self' https:\/\/app\.example\.test/);
    assert.equal(response.headers.get('x-frame-options'), 'DENY');
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(response.headers.get('referrer-policy'), 'same-origin'); // nothing to other sites; our own posts carry our Origin
    const page = await response.text();
    assert.match(page, /Team/);
    assert.match(page, /\$49\.00/);
    assert.match(page, /per month/);
    assert.ok(page.includes(`action="/checkout/${session.id}/pay"`));
    assert.ok(page.includes(`action="/checkout/${session.id}/cancel"`));
    assert.doesNotMatch(page, /<script|https?:\/\/[^"]*\.(css|js)/);
  });

  test('paying delivers the three signed events in order and redirects with the session id', async () => {
    const { customer, session } = await openCheckout(stripe, 'payer');
    const before = receiver.events.length;
    const response = await pay(simulator, session.id);
    assert.equal(response.status, 303);
    assert.equal(
      response.headers.get('location'),
      `https://app.example.test/billing/success?session_id=${session.id}`,
    );

    await receiver.waitFor(before + 3);
    const events = receiver.events.slice(before);
    assert.deepEqual(
      events.map((e) => e.type),
      ['checkout.session.completed', 'customer.subscription.created', 'invoice.paid'],
    );
    assert.deepEqual(receiver.rejected, []);
    for (const event of events) {
      assert.match(event.id, /^evt_/);
      assert.equal(event.object, 'event');
      assert.equal(event.livemode, false);
      assert.equal(event.api_version, '2026-10-28.endive');
      assert.ok(Number.isInteger(event.created));
    }

    const completed = events[0]!.data.object as Stripe.Checkout.Session;
    const subscription = events[1]!.data.object as Stripe.Subscription;
    const invoice = events[2]!.data.object as Stripe.Invoice;
    assert.equal(completed.id, session.id);
    assert.equal(completed.status, 'complete');
    assert.equal(completed.payment_status, 'paid');
    assert.equal(completed.client_reference_id, 'payer');
    assert.equal(completed.subscription, subscription.id);
    assert.match(subscription.id, /^sub_/);
    assert.equal(subscription.status, 'active');
    assert.equal(subscription.customer, customer.id);
    assert.deepEqual(subscription.metadata, { user_id: 'payer' });
    const item = subscription.items.data[0]!;
    assert.equal(item.price.id, 'price_sim_pro');
    assert.ok(Math.abs(item.current_period_start - Date.now() / 1000) < 60);
    const days = (item.current_period_end - item.current_period_start) / 86_400;
    assert.ok(days >= 28 && days <= 31, `period of ${days} days`);
    assert.match(invoice.id, /^in_/);
    assert.equal(invoice.status, 'paid');
    assert.equal(invoice.amount_paid, 1500);
    assert.equal(invoice.parent?.subscription_details?.subscription, subscription.id);
    assert.equal(subscription.latest_invoice, invoice.id);

    const read = await stripe.subscriptions.retrieve(subscription.id);
    assert.equal(read.status, 'active');
    assert.equal(read.latest_invoice, invoice.id);
    assert.equal(read.items.data[0]!.current_period_end, item.current_period_end);
    const delivered = await stripe.events.retrieve(events[0]!.id);
    assert.equal(delivered.pending_webhooks, 0);
  });

  test('a paid session cannot be paid again, and its page says it is complete', async () => {
    const { session } = await openCheckout(stripe, 'twice');
    assert.equal((await pay(simulator, session.id)).status, 303);
    const again = await pay(simulator, session.id);
    assert.equal(again.status, 409);
    assert.match(await again.text(), /complete/i);
    const page = await fetch(`${simulator.url}/checkout/${session.id}`);
    assert.match(await page.text(), /This checkout is complete/);
    assert.equal(
      (
        await stripe.subscriptions.list({
          customer: (await stripe.checkout.sessions.retrieve(session.id)).customer as string,
        })
      ).data.length,
      1,
    );
  });

  test('two Pay clicks at once create one subscription', async () => {
    const { customer, session } = await openCheckout(stripe, 'double-click');
    const statuses = (await Promise.all([pay(simulator, session.id), pay(simulator, session.id)]))
      .map((r) => r.status)
      .sort();
    assert.deepEqual(statuses, [303, 409]);
    assert.equal((await stripe.subscriptions.list({ customer: customer.id })).data.length, 1);
  });

  test('Cancel returns to cancel_url and leaves the session open', async () => {
    const { session } = await openCheckout(stripe, 'canceller');
    const response = await fetch(`${simulator.url}/checkout/${session.id}/cancel`, {
      method: 'POST',
      redirect: 'manual',
    });
    assert.equal(response.status, 303);
    assert.equal(response.headers.get('location'), 'https://app.example.test/billing/cancel');
    assert.equal((await stripe.checkout.sessions.retrieve(session.id)).status, 'open');
  });

  test('an expired session shows an expired page and cannot be paid', async () => {
    const { session } = await openCheckout(stripe, 'late');
    await stripe.checkout.sessions.expire(session.id);
    assert.match(await (await fetch(`${simulator.url}/checkout/${session.id}`)).text(), /expired/);
    assert.equal((await pay(simulator, session.id)).status, 409);
  });

  test('a session without a customer creates one from the e-mail typed on the page', async () => {
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: 'price_sim_pro', quantity: 1 }],
      success_url: 'https://app.example.test/ok',
    });
    assert.match(await (await fetch(session.url!)).text(), /type="email"/);
    assert.equal((await pay(simulator, session.id, 'email=new%40example.com')).status, 303);
    const paid = await stripe.checkout.sessions.retrieve(session.id, { expand: ['customer'] });
    assert.equal((paid.customer as Stripe.Customer).email, 'new@example.com');
    assert.equal(paid.customer_details?.email, 'new@example.com');
  });

  test('an unknown session is a 404 page; a cross-site form post is refused, our own is not', async () => {
    assert.equal((await fetch(`${simulator.url}/checkout/cs_test_unknown`)).status, 404);
    const { session } = await openCheckout(stripe, 'csrf');
    const post = (headers: Record<string, string>) =>
      fetch(`${simulator.url}/checkout/${session.id}/pay`, {
        method: 'POST',
        redirect: 'manual',
        headers,
      });
    assert.equal((await post({ origin: 'https://evil.example' })).status, 403);
    assert.equal((await post({ 'sec-fetch-site': 'cross-site', origin: 'null' })).status, 403);
    assert.equal((await post({ 'sec-fetch-site': 'same-site' })).status, 403);
    assert.equal((await stripe.checkout.sessions.retrieve(session.id)).status, 'open');
    // A browser that says same-origin is believed, whatever Origin it sends.
    assert.equal((await post({ 'sec-fetch-site': 'same-origin', origin: 'null' })).status, 303);
  });

  test('the signing secret matters: a receiver with another secret rejects the deliveries', async () => {
    assert.notEqual(SECRET, 'whsec_other');
    const other = await startReceiver('whsec_other');
    const own = await openTestDb(); // one simulator per database: a second one would deliver the first one's events too
    const strict = await startSimulator(own.db, { webhookUrl: () => other.url });
    try {
      const { session } = await openCheckout(sdk(strict), 'wrong-secret');
      await pay(strict, session.id);
      assert.ok(other.rejected.length >= 1);
      assert.equal(other.events.length, 0);
    } finally {
      await strict.close();
      await other.close();
      await own.close();
    }
  });
});
