// Plans by the month and by the year, as the simulator sells them when told `pro@year=...`: each
// tier one product with both prices (a year costs ten months), read and listed through the SDK as
// Stripe answers; a yearly checkout bills a year and says so on every page; a change of interval
// through the API resets the billing date and invoices the new period at once, the unused time on
// the old price credited (SubscriptionUpdateParams: "The billing interval is changed ... we apply a
// credit for the unused time on the previous price, immediately charge the customer using the new
// price, and reset the billing date"; with proration_behavior=none no credit).
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

const DAY = 86_400;
const daysOf = (item: Stripe.SubscriptionItem): number =>
  (item.current_period_end - item.current_period_start) / DAY;

describe(`monthly and yearly prices (${databaseLabel})`, onceInTheSuite, () => {
  let stack: SimulatorStack;
  before(async () => {
    stack = await startStack({ prices: PRICES_BY_MONTH_AND_YEAR });
  });
  after(() => stack.close());

  async function subscribed(userId: string, price: string) {
    const { customer, session } = await openCheckout(stack.stripe, userId, price);
    await pay(stack.simulator, session.id);
    const id = (await stack.stripe.checkout.sessions.retrieve(session.id)).subscription as string;
    return { customer, session, subscription: await stack.stripe.subscriptions.retrieve(id) };
  }
  const eventsAfter = async (start: number, count: number) => {
    await stack.receiver.waitFor(start + count);
    return stack.receiver.events.slice(start);
  };

  test('each tier has one product with a monthly and a yearly price, retrieved and listed by product, interval and lookup key', async () => {
    const { stripe } = stack;
    const yearly = await stripe.prices.retrieve('price_sim_pro_year');
    assert.deepEqual(
      [yearly.product, yearly.currency, yearly.unit_amount, yearly.type, yearly.active],
      ['prod_sim_pro', 'usd', 15_000, 'recurring', true],
    );
    assert.deepEqual([yearly.recurring?.interval, yearly.recurring?.interval_count], ['year', 1]);
    const monthly = await stripe.prices.retrieve('price_sim_pro');
    assert.deepEqual(
      [monthly.product, monthly.unit_amount, monthly.recurring?.interval, monthly.lookup_key],
      ['prod_sim_pro', 1500, 'month', 'pro'],
    );
    const ids = (list: Stripe.ApiList<Stripe.Price>) => list.data.map((p) => p.id).sort();
    assert.deepEqual(ids(await stripe.prices.list({ product: 'prod_sim_pro', active: true })), [
      'price_sim_pro',
      'price_sim_pro_year',
    ]);
    assert.deepEqual(ids(await stripe.prices.list({ recurring: { interval: 'year' } })), [
      'price_sim_pro_year',
      'price_sim_team_year',
    ]);
    assert.deepEqual(ids(await stripe.prices.list({ lookup_keys: ['team@year'] })), [
      'price_sim_team_year',
    ]);
    assert.deepEqual(ids(await stripe.prices.list({ currency: 'eur' })), []);
    assert.equal((await stripe.products.retrieve('prod_sim_team')).default_price, 'price_sim_team');
  });

  test('a yearly checkout: "per year" on the page, a period of a year, its invoice billing the year; a renewal adds another', async () => {
    const { customer, session } = await openCheckout(
      stack.stripe,
      'yearly-buyer',
      'price_sim_team_year',
    );
    const page = await (await fetch(session.url!)).text();
    assert.match(page, /\$490\.00<span[^>]*> per year/);
    await pay(stack.simulator, session.id);
    const id = (await stack.stripe.checkout.sessions.retrieve(session.id)).subscription as string;
    const subscription = await stack.stripe.subscriptions.retrieve(id, {
      expand: ['latest_invoice'],
    });
    const item = subscription.items.data[0]!;
    assert.ok([365, 366].includes(daysOf(item)), `${daysOf(item)} days`);
    assert.deepEqual([item.plan.interval, item.plan.amount], ['year', 49_000]);
    const invoice = subscription.latest_invoice as Stripe.Invoice;
    const [line] = invoice.lines.data;
    assert.equal(line!.description, '1 × Team (at $490.00 / year)');
    assert.deepEqual(line!.period, {
      start: item.current_period_start,
      end: item.current_period_end,
    });
    assert.equal(invoice.amount_paid, 49_000);

    const portal = await stack.stripe.billingPortal.sessions.create({ customer: customer.id });
    const portalPage = await (await fetch(portal.url)).text();
    assert.match(portalPage, /<strong>\$490\.00<\/strong> per year/);
    assert.match(portalPage, /Switch to Team \(\$49\.00\/month\)/);
    assert.match(
      await (await fetch(`${stack.simulator.url}/`)).text(),
      /\$490\.00<\/strong> per year/,
    );

    const renewed = (await control(stack.simulator, id, 'renew')).body.subscription.items.data[0]!;
    assert.equal(renewed.current_period_start, item.current_period_end);
    assert.ok([365, 366].includes(daysOf(renewed)), `${daysOf(renewed)} days`);
  });

  test('monthly to yearly through the API: the billing date resets, the year is invoiced and paid at once, the unused month credited', async () => {
    const { subscription } = await subscribed('to-yearly', 'price_sim_pro');
    const item = subscription.items.data[0]!;
    const start = stack.receiver.events.length;
    const before = Math.floor(Date.now() / 1000);
    const updated = await stack.stripe.subscriptions.update(subscription.id, {
      items: [{ id: item.id, price: 'price_sim_pro_year' }],
      expand: ['latest_invoice'],
    });
    const now = updated.items.data[0]!;
    assert.ok(now.current_period_start >= before && now.current_period_start < before + 60);
    assert.equal(updated.billing_cycle_anchor, now.current_period_start);
    assert.ok([365, 366].includes(daysOf(now)));
    const invoice = updated.latest_invoice as Stripe.Invoice;
    assert.equal(invoice.billing_reason, 'subscription_update');
    assert.equal(invoice.status, 'paid');
    const [credit, year] = invoice.lines.data;
    assert.match(credit!.description!, /^Unused time on Pro after /);
    assert.ok(credit!.amount < 0 && credit!.amount >= -1500, String(credit!.amount));
    assert.equal(credit!.parent?.subscription_item_details?.proration, true);
    assert.deepEqual([year!.amount, year!.description], [15_000, '1 × Pro (at $150.00 / year)']);
    assert.equal(invoice.total, 15_000 + credit!.amount);
    const events = await eventsAfter(start, 4);
    assert.deepEqual(
      events.map((e) => e.type),
      ['customer.subscription.updated', 'invoice.created', 'invoice.finalized', 'invoice.paid'],
    );
    const previous = events[0]!.data.previous_attributes as Partial<Stripe.Subscription>;
    assert.equal(previous.items!.data[0]!.price.id, 'price_sim_pro');
    assert.equal(previous.latest_invoice, subscription.latest_invoice);
  });

  test('yearly to monthly with proration_behavior=none: no credit, the month invoiced at once', async () => {
    const { subscription } = await subscribed('to-monthly', 'price_sim_team_year');
    const item = subscription.items.data[0]!;
    const updated = await stack.stripe.subscriptions.update(subscription.id, {
      items: [{ id: item.id, price: 'price_sim_team' }],
      proration_behavior: 'none',
      expand: ['latest_invoice'],
    });
    assert.ok([28, 29, 30, 31].includes(daysOf(updated.items.data[0]!)));
    const invoice = updated.latest_invoice as Stripe.Invoice;
    assert.deepEqual(
      invoice.lines.data.map((line) => [line.amount, line.description]),
      [[4900, '1 × Team (at $49.00 / month)']],
    );
  });
});
