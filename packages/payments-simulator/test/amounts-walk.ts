// The browser walk the amounts test takes (amounts-browser.test.ts): the simulator with monthly and
// yearly prices, a portal configured as the service configures its own, Chromium, and the steps a
// person takes: a checkout, the portal, a customer's clock moved ahead as a test clock's advance.
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import type Stripe from 'stripe';
import { PRICES_BY_MONTH_AND_YEAR, startStack, type SimulatorStack } from './harness.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const DAY = 86_400;
export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The text at `selector`, its white space as a person reads it. */
export const text = async (page: Page, selector: string) =>
  ((await page.textContent(selector)) ?? '').replace(/\s+/g, ' ').trim();

/** Clicks the button named `name` and answers the notice the page then shows. */
export async function press(page: Page, name: RegExp | string): Promise<string> {
  await Promise.all([
    page.waitForURL(/\?notice=/),
    page.getByRole('button', { name }).first().click(),
  ]);
  return text(page, '.notice');
}

const PORTAL_FEATURES: Stripe.BillingPortal.ConfigurationCreateParams['features'] = {
  subscription_update: {
    enabled: true,
    default_allowed_updates: ['price'],
    products: [
      { product: 'prod_sim_pro', prices: ['price_sim_pro', 'price_sim_pro_year'] },
      { product: 'prod_sim_team', prices: ['price_sim_team', 'price_sim_team_year'] },
    ],
    proration_behavior: 'create_prorations',
    schedule_at_period_end: {
      conditions: [{ type: 'decreasing_item_amount' }, { type: 'shortening_interval' }],
    },
  },
  subscription_cancel: { enabled: true, mode: 'at_period_end' },
};

export async function startWalk() {
  const stack: SimulatorStack = await startStack({ prices: PRICES_BY_MONTH_AND_YEAR });
  const browser: Browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const configuration = (
    await stack.stripe.billingPortal.configurations.create({ features: PORTAL_FEATURES })
  ).id;

  /** Checkout in the browser: what the page says, then Pay (back to the simulator's dashboard: the browser has no network). */
  async function checkout(
    page: Page,
    email: string,
    params: Partial<Stripe.Checkout.SessionCreateParams>,
  ) {
    const customer = await stack.stripe.customers.create({ email });
    const session = await stack.stripe.checkout.sessions.create({
      mode: 'subscription',
      customer: customer.id,
      success_url: `${stack.simulator.url}/?paid=1`,
      cancel_url: `${stack.simulator.url}/?unpaid=1`,
      ...params,
    });
    await page.goto(session.url!);
    const shown = { price: await text(page, '.price'), total: await text(page, '.total') };
    const paidFrom = nowSeconds();
    await Promise.all([page.waitForURL(/\?paid=1/), page.locator('button.primary').click()]);
    const id = (await stack.stripe.checkout.sessions.retrieve(session.id)).subscription as string;
    return {
      customer: customer.id,
      shown,
      paidFrom,
      paidTo: nowSeconds(),
      subscription: await stack.stripe.subscriptions.retrieve(id),
    };
  }

  /** A new portal session for `customer`, opened (a session lasts an hour of the customer's clock). */
  async function portal(page: Page, customer: string) {
    const session = await stack.stripe.billingPortal.sessions.create({ customer, configuration });
    await page.goto(session.url);
  }

  /** Moves the customer's clock `days` after `from`; how far it is then ahead of real time. */
  async function advance(customer: string, days: number, from: number): Promise<number> {
    const to = from + days * DAY;
    const answer = await fetch(`${stack.simulator.url}/_sim/customers/${customer}/advance`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer sk_test_simulator',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: `to=${to}`,
    });
    assert.equal(answer.status, 200, await answer.text());
    return to - nowSeconds();
  }

  return {
    stack,
    browser,
    checkout,
    portal,
    advance,
    async close() {
      await browser.close();
      await stack.close();
    },
  };
}
