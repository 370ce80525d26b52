// Trials, as Stripe runs them for the pinned API version: a checkout with
// subscription_data[trial_period_days] shows "14 days free, then ...", collects no card with
// payment_method_collection=if_required, and starts a trialing subscription with a $0 invoice;
// ending the trial now (the dashboard, /_sim, or the API's trial_end=now) sends
// customer.subscription.trial_will_end, then what the payment method, or its absence and the
// trial settings, lead to. And subscriptions made at the provider directly (POST /v1/subscriptions).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import {
  control,
  databaseLabel,
  noticeAt,
  pay,
  startStack,
  type SimulatorStack,
  onceInTheSuite,
} from './harness.ts';

const DAY = 86_400;

describe(`trials (${databaseLabel})`, onceInTheSuite, () => {
  let stack: SimulatorStack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  const since = (start: number) => stack.receiver.events.slice(start);
  const types = (start: number) => since(start).map((e) => e.type);

  /** An open trial checkout for a new customer, as the service opens one without a card. */
  async function trialCheckout(
    userId: string,
    {
      days = 14,
      card = false,
      missing = 'cancel' as const,
    }: { days?: number; card?: boolean; missing?: 'cancel' | 'pause' | 'create_invoice' } = {},
  ) {
    const customer = await stack.stripe.customers.create({ email: `${userId}@example.com` });
    const session = await stack.stripe.checkout.sessions.create({
      mode: 'subscription',
      customer: customer.id,
      line_items: [{ price: 'price_sim_pro', quantity: 1 }],
      success_url: 'https://app.example.test/billing/success?session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'https://app.example.test/billing/cancel',
      subscription_data: {
        metadata: { user_id: userId },
        trial_period_days: days,
        trial_settings: { end_behavior: { missing_payment_method: missing } },
      },
      ...(card ? {} : { payment_method_collection: 'if_required' as const }),
    });
    return { customer, session };
  }

  /** Pays (starts) the checkout and returns the subscription it made. */
  async function started(session: Stripe.Checkout.Session): Promise<Stripe.Subscription> {
    assert.equal((await pay(stack.simulator, session.id)).status, 303);
    const id = (await stack.stripe.checkout.sessions.retrieve(session.id)).subscription as string;
    return stack.stripe.subscriptions.retrieve(id);
  }

  test('the page says "14 days free, then $15.00 per month", asks for no card, and starts a trialing subscription', async () => {
    const { session } = await trialCheckout('trial-page');
    assert.equal(session.amount_total, 0, 'nothing is due today');
    assert.equal(session.payment_method_collection, 'if_required');
    const page = await (await fetch(session.url!)).text();
    assert.match(page, /14 days free, then \$15\.00 per month/);
    assert.match(page, /No card is needed for the trial/);
    assert.doesNotMatch(page, /4242 4242/);
    assert.match(page, />\s*Start trial\s*</);

    const start = stack.receiver.events.length;
    const before = Math.floor(Date.now() / 1000);
    const subscription = await started(session);
    assert.equal(subscription.status, 'trialing');
    assert.equal(subscription.default_payment_method, null);
    assert.ok(subscription.trial_start! >= before);
    assert.equal(subscription.trial_end, subscription.trial_start! + 14 * DAY);
    assert.equal(subscription.items.data[0]!.current_period_end, subscription.trial_end);
    assert.equal(subscription.billing_cycle_anchor, subscription.trial_end);
    assert.equal(subscription.trial_settings?.end_behavior.missing_payment_method, 'cancel');
    await stack.receiver.waitFor(start + 3);
    assert.deepEqual(types(start), [
      'checkout.session.completed',
      'customer.subscription.created',
      'invoice.paid',
    ]);
    const [completed, , paid] = since(start);
    assert.equal(
      (completed!.data.object as Stripe.Checkout.Session).payment_status,
      'no_payment_required',
    );
    const invoice = paid!.data.object as Stripe.Invoice;
    assert.equal(invoice.total, 0);
    assert.match(invoice.lines.data[0]!.description!, /^Trial period for Pro/);
  });

  test('a trial with a card required shows the card; one of three days or less sends trial_will_end at once', async () => {
    const { session } = await trialCheckout('trial-short', { days: 2, card: true });
    assert.equal(session.payment_method_collection, 'always');
    const page = await (await fetch(session.url!)).text();
    assert.match(page, /2 days free, then \$15\.00 per month/);
    assert.match(page, /4242 4242/);
    const start = stack.receiver.events.length;
    const subscription = await started(session);
    assert.notEqual(subscription.default_payment_method, null);
    await stack.receiver.waitFor(start + 4);
    assert.equal(types(start).at(-1), 'customer.subscription.trial_will_end');
  });

  test('ending a trial without a payment method, trial settings "cancel": trial_will_end, then deleted', async () => {
    const subscription = await started((await trialCheckout('trial-cancel')).session);
    const start = stack.receiver.events.length;
    const { status, body } = await control(stack.simulator, subscription.id, 'end-trial');
    assert.equal(status, 200);
    assert.equal(body.subscription.status, 'canceled');
    assert.deepEqual(
      body.events.map((e) => [e.type, e.delivered]),
      [
        ['customer.subscription.trial_will_end', true],
        ['customer.subscription.deleted', true],
      ],
    );
    assert.deepEqual(types(start), [
      'customer.subscription.trial_will_end',
      'customer.subscription.deleted',
    ]);
    // Ended at once (trial_end=now): the notice says the trial's end is now, as Stripe's does.
    const [notice, deleted] = since(start).map(
      (e) => (e as unknown as { data: { object: { trial_end: number } } }).data.object.trial_end,
    );
    assert.equal(typeof notice, 'number');
    assert.equal(notice, deleted);
  });

  test('without a payment method, "pause" pauses and "create_invoice" leaves the invoice unpaid (past_due)', async () => {
    const paused = await started(
      (await trialCheckout('trial-pause', { missing: 'pause' })).session,
    );
    const pausedEnd = await control(stack.simulator, paused.id, 'end-trial');
    assert.equal(pausedEnd.body.subscription.status, 'paused');
    assert.deepEqual(
      pausedEnd.body.events.map((e) => e.type),
      [
        'customer.subscription.trial_will_end',
        'customer.subscription.paused',
        'customer.subscription.updated',
      ],
    );

    const invoiced = await started(
      (await trialCheckout('trial-invoice', { missing: 'create_invoice' })).session,
    );
    const { body } = await control(stack.simulator, invoiced.id, 'end-trial');
    assert.equal(body.subscription.status, 'past_due');
    assert.equal(body.invoice!.status, 'open');
    assert.equal(body.invoice!.amount_due, 1500);
    assert.deepEqual(
      body.events.map((e) => e.type),
      [
        'customer.subscription.trial_will_end',
        'customer.subscription.updated',
        'invoice.created',
        'invoice.finalized',
        'invoice.payment_failed',
      ],
    );
  });

  test('with a payment method (or one added first), the trial ends paid: active, a new period, invoice.paid', async () => {
    const withCard = await started((await trialCheckout('trial-card', { card: true })).session);
    const before = Math.floor(Date.now() / 1000);
    const { body } = await control(stack.simulator, withCard.id, 'end-trial');
    assert.equal(body.subscription.status, 'active');
    assert.ok(
      body.subscription.trial_end! >= before && body.subscription.trial_end! < withCard.trial_end!,
    );
    assert.equal(
      body.subscription.items.data[0]!.current_period_start,
      body.subscription.trial_end,
    );
    assert.equal(body.invoice!.amount_paid, 1500);
    assert.equal(body.invoice!.created, body.subscription.trial_end, 'made when the trial ends');
    assert.deepEqual(
      [body.invoice!.period_start, body.invoice!.period_end],
      [withCard.trial_start, body.subscription.trial_end],
      'looking back on the trial',
    );
    assert.deepEqual(
      [body.events.length, body.invoice!.lines.data[0]!.period.start],
      [5, body.subscription.trial_end],
    );
    assert.deepEqual(
      body.events.map((e) => e.type),
      [
        'customer.subscription.trial_will_end',
        'customer.subscription.updated',
        'invoice.created',
        'invoice.finalized',
        'invoice.paid',
      ],
    );

    const cardless = await started((await trialCheckout('trial-add-card')).session);
    const added = await control(stack.simulator, cardless.id, 'end-trial-with-card');
    assert.equal(added.body.subscription.status, 'active');
    assert.deepEqual(added.body.events.map((e) => e.type).slice(0, 3), [
      'payment_method.attached',
      'customer.updated',
      'customer.subscription.updated',
    ]);
    assert.equal(added.body.events.at(-1)!.type, 'invoice.paid');
  });

  test('the API ends a trial with trial_end=now; a subscription that is not trialing has no trial to end', async () => {
    const subscription = await started((await trialCheckout('trial-api')).session);
    const ended = await stack.stripe.subscriptions.update(subscription.id, { trial_end: 'now' });
    assert.equal(ended.status, 'canceled');
    const again = await control(stack.simulator, subscription.id, 'end-trial');
    assert.equal(again.status, 400);
    assert.match(again.body.error!.message, /not trialing/);
    await assert.rejects(
      stack.stripe.subscriptions.update(subscription.id, { trial_end: 1_900_000_000 }),
      /supports trial_end=now only/,
    );
  });

  test('the dashboard offers to end a trial with or without a payment method, and says what happened', async () => {
    const subscription = await started((await trialCheckout('trial-dashboard')).session);
    const page = await (await fetch(`${stack.simulator.url}/`)).text();
    assert.match(page, /trial ends\s[^<]*, no payment method/);
    for (const action of ['end-trial', 'end-trial-with-card'])
      assert.ok(page.includes(`action="/dashboard/subscriptions/${subscription.id}/${action}"`));
    const response = await fetch(
      `${stack.simulator.url}/dashboard/subscriptions/${subscription.id}/end-trial`,
      { method: 'POST', redirect: 'manual' },
    );
    assert.equal(response.status, 303);
    assert.match(
      await noticeAt(response.headers.get('location')!, stack.simulator.url),
      /trial ended without a payment method: the subscription is canceled[\s\S]*customer\.subscription\.trial_will_end \(delivered\), customer\.subscription\.deleted \(delivered\)/,
    );
  });

  test('the portal of a trial started without a card says there is none, and offers to add one', async () => {
    const { customer, session } = await trialCheckout('trial-portal');
    await started(session);
    const portal = await stack.stripe.billingPortal.sessions.create({ customer: customer.id });
    const page = await (await fetch(portal.url)).text();
    assert.match(page, /No card on file/);
    assert.match(page, /Trial ends /);
    assert.match(page, /Update card/);
  });

  test('POST /v1/subscriptions: with a trial (metadata kept), without a payment method refused, default_incomplete incomplete', async () => {
    const customer = await stack.stripe.customers.create({ email: 'direct@example.com' });
    const start = stack.receiver.events.length;
    const trialing = await stack.stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: 'price_sim_team' }],
      trial_period_days: 7,
      metadata: { user_id: 'user-direct' },
    });
    assert.equal(trialing.status, 'trialing');
    assert.equal(trialing.metadata.user_id, 'user-direct');
    assert.equal(trialing.trial_end, trialing.trial_start! + 7 * DAY);
    await stack.receiver.waitFor(start + 4);
    assert.deepEqual(types(start), [
      'customer.subscription.created',
      'invoice.created',
      'invoice.finalized',
      'invoice.paid',
    ]);

    await assert.rejects(
      stack.stripe.subscriptions.create({
        customer: customer.id,
        items: [{ price: 'price_sim_pro' }],
      }),
      /no attached payment source or default payment method/,
    );
    const incomplete = await stack.stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: 'price_sim_pro' }],
      payment_behavior: 'default_incomplete',
    });
    assert.equal(incomplete.status, 'incomplete');
    const invoice = await stack.stripe.invoices.retrieve(incomplete.latest_invoice as string);
    assert.equal(invoice.status, 'open');
    await assert.rejects(
      stack.stripe.subscriptions.create({
        customer: customer.id,
        items: [{ price: 'price_sim_pro' }],
        trial_period_days: 731,
      }),
      /trial_period_days/,
    );
  });
});
