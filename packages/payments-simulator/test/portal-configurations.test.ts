// Billing portal configurations through the official SDK (create, retrieve, update merging into
// what is there, list by is_default and active, their events, Stripe's refusals), and the portal
// a session on one of them shows: exactly its prices, monthly and yearly; an upgrade applied at
// once with its proration lines; a downgrade (a smaller amount, a shorter interval) scheduled for
// the period's end with a subscription schedule that End period applies and releases; keeping the
// current plan or cancelling at the period's end releases a pending one.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import {
  control,
  databaseLabel,
  noticeAt,
  openCheckout,
  pay,
  PRICES_BY_MONTH_AND_YEAR,
  startStack,
  type SimulatorStack,
  onceInTheSuite,
} from './harness.ts';
import { markerDelivered } from './marker.ts';

/** What the service asks for: the given prices, upgrades prorated, downgrades at the period's end. */
const serviceConfiguration = (
  products: { product: string; prices: string[] }[],
): Stripe.BillingPortal.ConfigurationCreateParams => ({
  features: {
    subscription_update: {
      enabled: true,
      default_allowed_updates: ['price'],
      products,
      proration_behavior: 'create_prorations',
      schedule_at_period_end: {
        conditions: [{ type: 'decreasing_item_amount' }, { type: 'shortening_interval' }],
      },
    },
    subscription_cancel: { enabled: true, mode: 'at_period_end' },
    invoice_history: { enabled: true },
    payment_method_update: { enabled: true },
  },
  metadata: { managed_by: 'billing-service' },
});

const EVERY_PRICE = [
  { product: 'prod_sim_pro', prices: ['price_sim_pro', 'price_sim_pro_year'] },
  { product: 'prod_sim_team', prices: ['price_sim_team', 'price_sim_team_year'] },
];

describe(`billing portal configurations (${databaseLabel})`, onceInTheSuite, () => {
  let stack: SimulatorStack;
  before(async () => {
    stack = await startStack({ prices: PRICES_BY_MONTH_AND_YEAR });
  });
  after(() => stack.close());

  /** The events sent from now on, once those sent so far arrived (a marker lands after them). */
  async function since() {
    await markerDelivered(stack);
    const start = stack.receiver.events.length;
    return async () => {
      await markerDelivered(stack);
      // The markers' customer.updated left out: nothing here updates a customer.
      return stack.receiver.events.slice(start).filter((e) => e.type !== 'customer.updated');
    };
  }
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: Stripe.errors.StripeError) => ({
        status: error.statusCode,
        param: error.param,
        message: error.message,
      }),
    );

  async function portalOn(userId: string, configuration: string, price = 'price_sim_team') {
    const { customer, session } = await openCheckout(stack.stripe, userId, price);
    await pay(stack.simulator, session.id);
    const subscription = (await stack.stripe.checkout.sessions.retrieve(session.id))
      .subscription as string;
    const portal = await stack.stripe.billingPortal.sessions.create({
      customer: customer.id,
      configuration,
    });
    /** Presses a button as a browser posts its form; the notice the page shows next. */
    const press = async (action: string, fields: Record<string, string> = {}) => {
      const response = await fetch(`${portal.url}/${action}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ subscription, ...fields }).toString(),
      });
      assert.equal(response.status, 303);
      return noticeAt(response.headers.get('location')!, portal.url);
    };
    const page = async () => (await fetch(portal.url)).text();
    const read = () => stack.stripe.subscriptions.retrieve(subscription);
    return { subscription, portal, press, page, read };
  }

  test('create, retrieve, update (merged; metadata unset with ""), list by is_default and active, with their events', async () => {
    const defaults = await stack.stripe.billingPortal.configurations.list({ is_default: true });
    assert.deepEqual(
      defaults.data.map((c) => [c.id, c.is_default, c.active]),
      [['bpc_simulator_default', true, true]],
    );
    const events = await since();
    const made = await stack.stripe.billingPortal.configurations.create(
      serviceConfiguration(EVERY_PRICE),
    );
    assert.match(made.id, /^bpc_/);
    assert.deepEqual([made.is_default, made.active, made.name], [false, true, null]);
    assert.deepEqual(made.metadata, { managed_by: 'billing-service' });
    const update = made.features.subscription_update;
    assert.deepEqual(update.products, [
      { ...EVERY_PRICE[0], adjustable_quantity: { enabled: false, maximum: null, minimum: 1 } },
      { ...EVERY_PRICE[1], adjustable_quantity: { enabled: false, maximum: null, minimum: 1 } },
    ]);
    assert.deepEqual(
      [update.proration_behavior, update.default_allowed_updates, update.trial_update_behavior],
      ['create_prorations', ['price'], 'end_trial'],
    );
    assert.equal(made.features.subscription_pause.enabled, false);
    assert.deepEqual(made.features.customer_update, { allowed_updates: [], enabled: false });
    assert.deepEqual(await stack.stripe.billingPortal.configurations.retrieve(made.id), made);

    const changed = await stack.stripe.billingPortal.configurations.update(made.id, {
      metadata: { managed_by: '' },
      features: { invoice_history: { enabled: false } },
    });
    assert.deepEqual(changed.metadata, {});
    assert.equal(changed.features.invoice_history.enabled, false);
    assert.deepEqual(changed.features.subscription_update, update, 'the rest is kept');
    const unchanged = await stack.stripe.billingPortal.configurations.update(made.id, {
      features: { invoice_history: { enabled: false } },
    });
    assert.deepEqual(unchanged, changed, 'nothing to change: no event');
    await stack.stripe.billingPortal.configurations.update(made.id, { active: false });

    const sent = await events();
    assert.deepEqual(
      sent.map((e) => e.type),
      [
        'billing_portal.configuration.created',
        'billing_portal.configuration.updated',
        'billing_portal.configuration.updated',
      ],
    );
    // The old values of the keys that changed, whole (the simulator's previous_attributes).
    assert.deepEqual(sent[1]!.data.previous_attributes, {
      features: made.features,
      metadata: { managed_by: 'billing-service' },
      updated: made.updated,
    });
    const others = await stack.stripe.billingPortal.configurations.list({ is_default: false });
    assert.deepEqual(
      others.data.map((c) => c.id),
      [made.id],
    );
    const active = await stack.stripe.billingPortal.configurations.list({ active: true });
    assert.deepEqual(
      active.data.map((c) => c.id),
      ['bpc_simulator_default'],
    );
    const customer = await stack.stripe.customers.create({ email: 'inactive@example.com' });
    assert.deepEqual(
      await refusal(
        stack.stripe.billingPortal.sessions.create({
          customer: customer.id,
          configuration: made.id,
        }),
      ),
      {
        status: 400,
        param: 'configuration',
        message: `The configuration ${made.id} is not active: activate it, or use another.`,
      },
    );
  });

  test("Stripe's refusals: a price of another product, cancellation prorations it cannot make, no features", async () => {
    const crossed = serviceConfiguration([{ product: 'prod_sim_pro', prices: ['price_sim_team'] }]);
    assert.deepEqual(await refusal(stack.stripe.billingPortal.configurations.create(crossed)), {
      status: 400,
      param: 'features[subscription_update][products][0][prices][0]',
      message: 'The price price_sim_team does not belong to the product prod_sim_pro.',
    });
    const prorated = serviceConfiguration(EVERY_PRICE);
    prorated.features.subscription_cancel = {
      enabled: true,
      mode: 'at_period_end',
      proration_behavior: 'always_invoice',
    };
    const refused = await refusal(stack.stripe.billingPortal.configurations.create(prorated));
    assert.equal(refused?.param, 'features[subscription_cancel][proration_behavior]');
    const bare = await refusal(
      stack.stripe.billingPortal.configurations.create(
        {} as Stripe.BillingPortal.ConfigurationCreateParams,
      ),
    );
    assert.deepEqual([bare?.status, bare?.param], [400, 'features']);
  });

  test('the portal offers exactly the configured prices; an upgrade at once with proration lines; a downgrade waits for End period', async () => {
    const configuration = await stack.stripe.billingPortal.configurations.create(
      serviceConfiguration([
        { product: 'prod_sim_pro', prices: ['price_sim_pro'] },
        { product: 'prod_sim_team', prices: ['price_sim_team', 'price_sim_team_year'] },
      ]),
    );
    const portal = await portalOn('portal-config-upgrade', configuration.id);
    const first = await portal.page();
    const offered = [...first.matchAll(/Switch to ([^<]*)</g)].map((m) => m[1]);
    assert.equal(offered.length, 2, offered.join(' | '));
    assert.match(offered[0]!, /^Pro \(\$15\.00\/month\) from /, 'a smaller amount waits');
    assert.equal(offered[1], 'Team ($490.00/year)', 'a longer interval does not');
    assert.match(first, /Cancel at period end/);
    assert.doesNotMatch(first, /Cancel now/, 'cancellation at the period end only');

    // Monthly to yearly: at once, the unused month credited on the year's invoice.
    const upgraded = await since();
    assert.match(
      await portal.press('switch', { price: 'price_sim_team_year' }),
      /^Switched to Team \(\$490\.00\/year\)/,
    );
    const yearly = await portal.read();
    assert.equal(yearly.items.data[0]!.price.id, 'price_sim_team_year');
    const invoice = await stack.stripe.invoices.retrieve(String(yearly.latest_invoice));
    const prorations = invoice.lines.data.filter(
      (line) => line.parent?.subscription_item_details?.proration,
    );
    assert.equal(prorations.length, 1);
    assert.ok(prorations[0]!.amount < 0, 'the unused month credited');
    assert.ok(
      (await upgraded()).every((e) => !e.type.startsWith('subscription_schedule.')),
      'an upgrade makes no schedule',
    );

    // Yearly to monthly (shorter, and smaller): scheduled for the period's end.
    const periodEnd = yearly.items.data[0]!.current_period_end;
    const scheduling = await since();
    assert.match(
      await portal.press('switch', { price: 'price_sim_pro' }),
      /^Your plan changes to Pro \(\$15\.00\/month\) on .*; until then it stays Team/,
    );
    const pending = await portal.read();
    assert.equal(pending.items.data[0]!.price.id, 'price_sim_team_year', 'the plan is kept');
    const schedule = await stack.stripe.subscriptionSchedules.retrieve(String(pending.schedule));
    assert.deepEqual(
      schedule.phases.map((p) => [p.start_date, p.end_date, p.items[0]!.price]),
      [
        [yearly.items.data[0]!.current_period_start, periodEnd, 'price_sim_team_year'],
        [periodEnd, schedule.phases[1]!.end_date, 'price_sim_pro'],
      ],
    );
    assert.equal(schedule.end_behavior, 'release');
    assert.deepEqual(
      (await scheduling()).map((e) => e.type),
      ['subscription_schedule.created', 'customer.subscription.updated'],
    );
    const shown = await portal.page();
    assert.match(shown, /Changes to Pro \(\$15\.00\/month\) on /);
    assert.match(shown, /Keep current plan/);
    assert.doesNotMatch(shown, /Switch to/, 'one change at a time');

    // End period: the subscription moves to the new price and the schedule is released.
    const ending = await since();
    assert.equal((await control(stack.simulator, portal.subscription, 'renew')).status, 200);
    const moved = await portal.read();
    assert.deepEqual([moved.items.data[0]!.price.id, moved.schedule], ['price_sim_pro', null]);
    const released = await stack.stripe.subscriptionSchedules.retrieve(schedule.id);
    assert.deepEqual(
      [released.status, released.released_subscription, released.subscription],
      ['released', portal.subscription, null],
    );
    const types: string[] = (await ending()).map((e) => e.type);
    for (const type of [
      'subscription_schedule.updated',
      'subscription_schedule.released',
      'customer.subscription.updated',
      'invoice.paid',
    ])
      assert.ok(types.includes(type), `${type} in ${types.join(', ')}`);
  });

  test('a pending downgrade: keeping the current plan releases it; cancelling at the period end releases it and sets cancel_at', async () => {
    const configuration = await stack.stripe.billingPortal.configurations.create(
      serviceConfiguration(EVERY_PRICE),
    );
    const portal = await portalOn('portal-config-cancel', configuration.id);
    await portal.press('switch', { price: 'price_sim_pro' });
    const scheduled = await portal.read();
    assert.notEqual(scheduled.schedule, null);

    const keeping = await since();
    assert.match(
      await portal.press('keep-plan'),
      /^The scheduled change is withdrawn: the subscription stays on Team/,
    );
    assert.equal((await portal.read()).schedule, null);
    assert.deepEqual(
      (await keeping()).map((e) => e.type),
      ['subscription_schedule.released', 'customer.subscription.updated'],
    );

    await portal.press('switch', { price: 'price_sim_pro' });
    const second = String((await portal.read()).schedule);
    assert.equal(await portal.press('cancel-now'), 'This portal does not offer that.');
    const cancelling = await since();
    assert.match(await portal.press('cancel-at-period-end'), /will be canceled at the end/);
    const canceled = await portal.read();
    assert.deepEqual(
      [canceled.schedule, canceled.cancel_at, canceled.items.data[0]!.price.id],
      [null, canceled.items.data[0]!.current_period_end, 'price_sim_team'],
    );
    assert.equal((await stack.stripe.subscriptionSchedules.retrieve(second)).status, 'released');
    assert.deepEqual(
      (await cancelling()).map((e) => e.type),
      ['subscription_schedule.released', 'customer.subscription.updated'],
    );
  });
});
