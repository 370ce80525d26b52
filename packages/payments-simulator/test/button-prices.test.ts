// A portal button's price is the price its notice then reports: the plan at what each period of it
// bills (quantity, discount and tax included), in one wording for both. The proration is said
// apart, in the notice.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import {
  databaseLabel,
  noticeAt,
  pay,
  startStack,
  type SimulatorStack,
  onceInTheSuite,
} from './harness.ts';

const SUITE = `portal buttons say the price their notice reports (${databaseLabel})`;

describe(SUITE, onceInTheSuite, () => {
  let stack: SimulatorStack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  /** A portal on a subscription bought with `extra` checkout parameters. */
  async function portalFor(user: string, extra: Partial<Stripe.Checkout.SessionCreateParams>) {
    const customer = await stack.stripe.customers.create({ email: `${user}@example.com` });
    const session = await stack.stripe.checkout.sessions.create({
      mode: 'subscription',
      customer: customer.id,
      line_items: [{ price: 'price_sim_pro', quantity: 1 }],
      success_url: 'https://app.example.test/ok',
      cancel_url: 'https://app.example.test/no',
      ...extra,
    });
    await pay(stack.simulator, session.id);
    const subscription = (await stack.stripe.checkout.sessions.retrieve(session.id))
      .subscription as string;
    const portal = await stack.stripe.billingPortal.sessions.create({ customer: customer.id });
    return { subscription, url: portal.url };
  }

  /** The button's label offering `plan`, then the notice pressing it shows. */
  async function switchTo(
    portal: { subscription: string; url: string },
    plan: string,
    price: string,
  ) {
    const page = await (await fetch(portal.url)).text();
    const label = new RegExp(`>Switch to (${plan} \\([^)]*\\))<`).exec(page)?.[1];
    assert.ok(label, `a button offers ${plan}`);
    const response = await fetch(`${portal.url}/switch`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ subscription: portal.subscription, price }).toString(),
    });
    return { label, notice: await noticeAt(response.headers.get('location')!, portal.url) };
  }

  test('with SAVE20, the button and the notice both say the discounted price', async () => {
    const portal = await portalFor('buttons-save20', {
      discounts: [{ promotion_code: 'promo_sim_save20' }],
    });
    const { label, notice } = await switchTo(portal, 'Team', 'price_sim_team');
    assert.equal(label, 'Team ($39.20/month with SAVE20)');
    assert.ok(notice.startsWith(`Switched to ${label};`), notice);
  });

  test('with a quantity, the button and the notice both say what the quantity bills', async () => {
    const portal = await portalFor('buttons-quantity', {
      line_items: [{ price: 'price_sim_team', quantity: 3 }],
    });
    const { label, notice } = await switchTo(portal, 'Pro', 'price_sim_pro');
    assert.equal(label, 'Pro (3 × $15.00 = $45.00/month)');
    assert.ok(notice.startsWith(`Switched to ${label};`), notice);
  });
});
