// Promotion codes, automatic tax and scheduled cancellations, as Stripe has them for the pinned API
// version: the test code SAVE20 typed on the checkout page changes the price it shows and every
// invoice after; automatic tax adds its line; Stripe's refusals of combinations it does not allow;
// `cancel_at` (the flexible billing mode's way) and the deprecated cancel_at_period_end through the
// API, and the end of the period ending a subscription scheduled either way.
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

const SUITE = `promotion codes, tax and scheduled cancellations (${databaseLabel})`;

describe(SUITE, onceInTheSuite, () => {
  let stack: SimulatorStack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  async function checkout(userId: string, extra: Partial<Stripe.Checkout.SessionCreateParams>) {
    const customer = await stack.stripe.customers.create({ email: `${userId}@example.com` });
    const session = await stack.stripe.checkout.sessions.create({
      mode: 'subscription',
      customer: customer.id,
      line_items: [{ price: 'price_sim_pro', quantity: 1 }],
      success_url: 'https://app.example.test/billing/success?session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'https://app.example.test/billing/cancel',
      subscription_data: { metadata: { user_id: userId } },
      ...extra,
    });
    return { customer, session };
  }
  /** Types `code` into the page's promotion code field; the notice the page then shows. */
  async function typeCode(session: Stripe.Checkout.Session, code: string): Promise<string> {
    const response = await fetch(`${stack.simulator.url}/checkout/${session.id}/promotion-code`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ code }).toString(),
    });
    assert.equal(response.status, 303);
    return noticeAt(response.headers.get('location')!, stack.simulator.url);
  }
  async function paid(session: Stripe.Checkout.Session) {
    assert.equal((await pay(stack.simulator, session.id)).status, 303);
    const done = await stack.stripe.checkout.sessions.retrieve(session.id);
    const subscription = await stack.stripe.subscriptions.retrieve(done.subscription as string);
    const invoice = await stack.stripe.invoices.retrieve(done.invoice as string);
    return { done, subscription, invoice };
  }

  test('SAVE20 on the checkout page: the price shown, the session, the first invoice and the renewal', async () => {
    const { session } = await checkout('promo-user', { allow_promotion_codes: true });
    assert.equal(session.allow_promotion_codes, true);
    assert.match(await (await fetch(session.url!)).text(), /Promotion code/);
    assert.equal(await typeCode(session, 'NOPE'), 'This code is invalid.');
    assert.equal(await typeCode(session, 'save20'), 'Code SAVE20 applied.');
    const page = await (await fetch(session.url!)).text();
    assert.match(page, /SAVE20 \(20% off forever\)[\s\S]*−\$3\.00/);
    assert.match(page, /Total due today \$12\.00/);
    assert.match(page, /Pay \$12\.00 and subscribe/);
    const open = await stack.stripe.checkout.sessions.retrieve(session.id);
    assert.deepEqual(open.discounts, [
      { coupon: 'sim_20_off', promotion_code: 'promo_sim_save20' },
    ]);
    assert.deepEqual(
      [open.amount_subtotal, open.total_details?.amount_discount, open.amount_total],
      [1500, 300, 1200],
    );

    const { subscription, invoice } = await paid(session);
    assert.equal(subscription.discounts.length, 1);
    const discount = subscription.discounts[0] as string;
    assert.match(discount, /^di_/);
    assert.deepEqual([invoice.subtotal, invoice.total, invoice.amount_paid], [1500, 1200, 1200]);
    assert.deepEqual(invoice.discounts, [discount]);
    assert.deepEqual(invoice.total_discount_amounts, [{ amount: 300, discount }]);
    assert.deepEqual(invoice.lines.data[0]!.discount_amounts, [{ amount: 300, discount }]);
    const renewal = await control(stack.simulator, subscription.id, 'renew');
    assert.equal(renewal.body.invoice!.total, 1200, 'forever: every invoice');
    const [code] = (await stack.stripe.promotionCodes.list({ code: 'save20' })).data;
    assert.equal(code!.id, 'promo_sim_save20');
    assert.ok(code!.times_redeemed >= 1);
    assert.equal((await stack.stripe.coupons.retrieve('sim_20_off')).percent_off, 20);
  });

  test('a plan switch under SAVE20 and tax: prorations net of the discount (not discountable, its amount 0), taxed, the credit negatively', async () => {
    const { customer, session } = await checkout('promo-switch-user', {
      automatic_tax: { enabled: true },
      customer_update: { address: 'auto' },
      discounts: [{ promotion_code: 'promo_sim_save20' }],
    });
    const { subscription } = await paid(session);
    const portal = await stack.stripe.billingPortal.sessions.create({ customer: customer.id });
    await fetch(`${portal.url}/switch`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ subscription: subscription.id, price: 'price_sim_team' }),
    });
    const switched = await stack.stripe.subscriptions.retrieve(subscription.id, {
      expand: ['latest_invoice'],
    });
    const invoice = switched.latest_invoice as Stripe.Invoice;
    const discount = subscription.discounts[0] as string;
    // Seconds into the period, nearly all of it is left: 80 % of each price, 10 % tax on that.
    assert.deepEqual(
      invoice.lines.data.map((line) => [
        line.amount,
        line.discountable,
        line.discount_amounts,
        line.taxes!.map((tax) => tax.amount),
      ]),
      [
        [-1200, false, [{ amount: 0, discount }], [-120]],
        [3920, false, [{ amount: 0, discount }], [392]],
      ],
    );
    assert.deepEqual(invoice.total_discount_amounts, [{ amount: 0, discount }]);
    assert.deepEqual([invoice.subtotal, invoice.total], [2720, 2992]);
  });

  test('without allow_promotion_codes the page has no code field and a typed code changes nothing', async () => {
    const { session } = await checkout('no-promo-user', {});
    assert.doesNotMatch(await (await fetch(session.url!)).text(), /Promotion code/);
    assert.equal(await typeCode(session, 'SAVE20'), 'This code is invalid.');
    assert.equal((await stack.stripe.checkout.sessions.retrieve(session.id)).amount_total, 1500);
  });

  test('automatic tax: the tax line on the page, the session, the invoice; the address written to the customer', async () => {
    const { customer, session } = await checkout('tax-user', {
      automatic_tax: { enabled: true },
      customer_update: { address: 'auto', name: 'auto' },
      tax_id_collection: { enabled: true },
      discounts: [{ promotion_code: 'promo_sim_save20' }],
    });
    assert.equal(session.automatic_tax.enabled, true);
    assert.equal(session.automatic_tax.status, 'requires_location_inputs');
    assert.equal(session.tax_id_collection?.enabled, true);
    assert.deepEqual(
      [
        session.amount_subtotal,
        session.total_details?.amount_discount,
        session.total_details?.amount_tax,
        session.amount_total,
      ],
      [1500, 300, 120, 1320],
    );
    const page = await (await fetch(session.url!)).text();
    assert.match(page, /Sales tax \(simulated, 10%\)[\s\S]*\$1\.20/);
    assert.match(page, /Total due today \$13\.20/);

    const { done, subscription, invoice } = await paid(session);
    assert.equal(done.automatic_tax.status, 'complete');
    assert.equal(subscription.automatic_tax.enabled, true);
    assert.equal(invoice.automatic_tax.enabled, true);
    assert.deepEqual(
      [invoice.subtotal, invoice.total_excluding_tax, invoice.total],
      [1500, 1200, 1320],
    );
    assert.equal(invoice.total_taxes![0]!.amount, 120);
    assert.equal(invoice.total_taxes![0]!.taxable_amount, 1200);
    assert.equal(
      ((await stack.stripe.customers.retrieve(customer.id)) as Stripe.Customer).address?.country,
      'US',
    );
  });

  test("Stripe's refusals: promotion codes with a discount, customer_update without a customer, tax without an address or a name to write, bad trials", async () => {
    const base = {
      mode: 'subscription' as const,
      line_items: [{ price: 'price_sim_pro', quantity: 1 }],
      success_url: 'https://app.example.test/done',
    };
    const customer = await stack.stripe.customers.create({ email: 'refused@example.com' });
    const refused: [Partial<Stripe.Checkout.SessionCreateParams>, RegExp][] = [
      [
        {
          customer: customer.id,
          allow_promotion_codes: true,
          discounts: [{ coupon: 'sim_20_off' }],
        },
        /only specify one of these parameters: allow_promotion_codes, discounts/,
      ],
      [
        { customer_update: { address: 'auto' } },
        /customer_update` can only be used with `customer`/,
      ],
      [
        { customer: customer.id, automatic_tax: { enabled: true } },
        /requires a valid address on the Customer/,
      ],
      [
        {
          customer: customer.id,
          automatic_tax: { enabled: true },
          customer_update: { address: 'auto' },
          tax_id_collection: { enabled: true },
        },
        /tax_id_collection requires updating business name/,
      ],
      [
        { customer: customer.id, discounts: [{ promotion_code: 'promo_nope' }] },
        /No such promotion_code/,
      ],
      [{ customer: customer.id, subscription_data: { trial_period_days: 0 } }, /trial_period_days/],
      [
        { customer: customer.id, subscription_data: { trial_period_days: 731 } },
        /trial_period_days/,
      ],
      [
        {
          customer: customer.id,
          subscription_data: { trial_period_days: 7, trial_end: 1_900_000_000 },
        },
        /only specify one of these parameters: subscription_data\[trial_end\], subscription_data\[trial_period_days\]/,
      ],
      [
        { customer: customer.id, payment_method_collection: 'never' as 'always' },
        /payment_method_collection/,
      ],
    ];
    for (const [params, message] of refused)
      await assert.rejects(
        stack.stripe.checkout.sessions.create({ ...base, ...params }),
        (error: Stripe.errors.StripeError) => {
          assert.equal(error.statusCode, 400, JSON.stringify(params));
          assert.match(error.message, message, JSON.stringify(params));
          return true;
        },
      );
  });

  test('cancel_at through the API: a time, the period end by name, cleared with ""; never with cancel_at_period_end', async () => {
    const { session } = await checkout('cancel-at-user', {});
    const { subscription } = await paid(session);
    const periodEnd = subscription.items.data[0]!.current_period_end;
    const start = stack.receiver.events.length;
    // An hour ahead on the simulator's clock (an earlier renewal may have moved it past ours).
    const soon = subscription.created + 3_600;
    const scheduled = await stack.stripe.subscriptions.update(subscription.id, { cancel_at: soon });
    assert.deepEqual([scheduled.cancel_at, scheduled.cancel_at_period_end], [soon, false]);
    await stack.receiver.waitFor(start + 1);
    const event = stack.receiver.events.at(-1)!;
    assert.equal(event.type, 'customer.subscription.updated');
    assert.deepEqual(event.data.previous_attributes?.cancel_at, null);

    const atEnd = await stack.stripe.subscriptions.update(subscription.id, {
      cancel_at: 'max_period_end',
    });
    assert.deepEqual([atEnd.cancel_at, atEnd.cancel_at_period_end], [periodEnd, false]);
    const cleared = await stack.stripe.subscriptions.update(subscription.id, { cancel_at: '' });
    assert.deepEqual([cleared.cancel_at, cleared.cancel_at_period_end], [null, false]);
    // The deprecated flag still works, the classic way: both fields set.
    const flagged = await stack.stripe.subscriptions.update(subscription.id, {
      cancel_at_period_end: true,
    });
    assert.deepEqual([flagged.cancel_at, flagged.cancel_at_period_end], [periodEnd, true]);
    await assert.rejects(
      stack.stripe.subscriptions.update(subscription.id, {
        cancel_at: soon,
        cancel_at_period_end: false,
      }),
      /only specify one of these parameters: cancel_at, cancel_at_period_end/,
    );
    await assert.rejects(
      stack.stripe.subscriptions.update(subscription.id, { cancel_at: 1_000_000_000 }),
      /must be in the future/,
    );
  });

  test('the end of the period ends a subscription scheduled with cancel_at alone: customer.subscription.deleted', async () => {
    const { session } = await checkout('cancel-at-end-user', {});
    const { subscription } = await paid(session);
    const scheduled = await control(stack.simulator, subscription.id, 'schedule-cancel');
    assert.deepEqual(
      [scheduled.body.subscription.cancel_at, scheduled.body.subscription.cancel_at_period_end],
      [subscription.items.data[0]!.current_period_end, false],
    );
    const refused = await control(stack.simulator, subscription.id, 'fail-renewal');
    assert.equal(refused.status, 400);
    const ended = await control(stack.simulator, subscription.id, 'renew');
    assert.equal(ended.body.subscription.status, 'canceled');
    assert.equal(ended.body.subscription.ended_at, scheduled.body.subscription.cancel_at);
    assert.deepEqual(
      ended.body.events.map((e) => e.type),
      ['customer.subscription.deleted'],
    );
  });
});
