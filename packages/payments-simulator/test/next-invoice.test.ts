// The next invoice the portal and the dashboard show is what the renewal then bills, a schedule's
// next phase included (Stripe's upcoming invoice previews the subscription as the period's end
// leaves it): a team downgraded to Pro at the period's end, a yearly plan to a monthly one.
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

describe(`the next invoice with a scheduled change (${databaseLabel})`, onceInTheSuite, () => {
  let stack: SimulatorStack;
  before(async () => {
    stack = await startStack({ prices: PRICES_BY_MONTH_AND_YEAR });
  });
  after(() => stack.close());

  async function subscribed(user: string, price: string): Promise<Stripe.Subscription> {
    const { session } = await openCheckout(stack.stripe, user, price);
    await pay(stack.simulator, session.id);
    const id = (await stack.stripe.checkout.sessions.retrieve(session.id)).subscription as string;
    return stack.stripe.subscriptions.retrieve(id);
  }

  /** A schedule from the subscription: its price until the period's end, then `price`. */
  async function changeAtPeriodEnd(subscription: Stripe.Subscription, price: string) {
    const schedule = await stack.stripe.subscriptionSchedules.create({
      from_subscription: subscription.id,
    });
    const [current] = schedule.phases;
    await stack.stripe.subscriptionSchedules.update(schedule.id, {
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

  /** "$94.00" from the portal's "Next invoice $94.00 on ..." and the dashboard's row. */
  async function nextInvoiceShown(subscription: Stripe.Subscription): Promise<string> {
    const portal = await stack.stripe.billingPortal.sessions.create({
      customer: String(subscription.customer),
    });
    const page = await (await fetch(portal.url)).text();
    const inPortal = /Next invoice (\$[\d,.]+) on/.exec(page)?.[1];
    const dashboard = await (await fetch(`${stack.simulator.url}/`)).text();
    const row = dashboard.slice(dashboard.indexOf(`<code>${subscription.id}</code>`));
    const onDashboard = /next invoice (\$[\d,.]+) on/.exec(row)?.[1];
    assert.equal(inPortal, onDashboard, 'the portal and the dashboard agree');
    return inPortal!;
  }

  async function renewalPaid(subscription: Stripe.Subscription): Promise<string> {
    const renewed = await control(stack.simulator, subscription.id, 'renew');
    return `$${(renewed.body.invoice!.amount_paid / 100).toFixed(2)}`;
  }

  test('a team downgraded to Pro at the period end: the next invoice is Pro, as the renewal bills', async () => {
    const team = await subscribed('next-team', 'price_sim_team');
    await changeAtPeriodEnd(team, 'price_sim_pro');
    const shown = await nextInvoiceShown(team);
    assert.equal(shown, '$15.00');
    assert.equal(await renewalPaid(team), shown);
  });

  test('a yearly plan changing to monthly: the next invoice is a month', async () => {
    const yearly = await subscribed('next-yearly', 'price_sim_pro_year');
    await changeAtPeriodEnd(yearly, 'price_sim_pro');
    const shown = await nextInvoiceShown(yearly);
    assert.equal(shown, '$15.00');
    assert.equal(await renewalPaid(yearly), shown);
  });

  test('without a scheduled change the next invoice is the current plan', async () => {
    const team = await subscribed('next-plain', 'price_sim_team');
    const shown = await nextInvoiceShown(team);
    assert.equal(shown, '$49.00');
    assert.equal(await renewalPaid(team), shown);
  });
});
