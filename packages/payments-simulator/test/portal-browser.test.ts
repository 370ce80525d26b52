// The portal on a configuration like the service's, in a real browser (Chromium): a month to a
// year is an upgrade, applied at once; a year back to a month waits for the period's end, shown
// on the page; cancelling at the period's end while that change is pending releases it.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import {
  onPostgres,
  openCheckout,
  pay,
  PRICES_BY_MONTH_AND_YEAR,
  startStack,
  type SimulatorStack,
} from './harness.ts';

const CHROMIUM = '/usr/bin/chromium';
const skip = onPostgres
  ? 'runs once, in the PGlite half'
  : !existsSync(CHROMIUM)
    ? `no browser at ${CHROMIUM}`
    : false;

describe('the configured portal in a browser', { skip }, () => {
  let stack: SimulatorStack;
  let browser: Browser;
  before(async () => {
    stack = await startStack({ prices: PRICES_BY_MONTH_AND_YEAR });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
  });
  after(async () => {
    await browser?.close();
    await stack?.close();
  });

  /** Clicks the button and answers the notice the page then shows. */
  async function press(page: Page, name: RegExp): Promise<string> {
    await Promise.all([
      page.waitForURL(/\?notice=/),
      page.getByRole('button', { name }).first().click(),
    ]);
    return (await page.textContent('.notice')) ?? '';
  }

  test('monthly to yearly at once; back to monthly at the period end; cancelling drops it', async () => {
    const { stripe, simulator } = stack;
    const configuration = await stripe.billingPortal.configurations.create({
      features: {
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
      },
    });
    const { customer, session } = await openCheckout(stripe, 'browser-portal', 'price_sim_team');
    await pay(simulator, session.id);
    const id = (await stripe.checkout.sessions.retrieve(session.id)).subscription as string;
    const portal = await stripe.billingPortal.sessions.create({
      customer: customer.id,
      configuration: configuration.id,
    });
    const page = await browser.newPage();
    await page.goto(portal.url);

    assert.match(
      await press(page, /^Switch to Team \(\$490\.00\/year\)$/),
      /^Switched to Team \(\$490\.00\/year\)[\s\S]*invoice\.paid \(delivered\)/,
    );
    assert.equal(
      (await stripe.subscriptions.retrieve(id)).items.data[0]!.price.id,
      'price_sim_team_year',
    );

    assert.match(
      await press(page, /^Switch to Team \(\$49\.00\/month\) from /),
      /^Your plan changes to Team \(\$49\.00\/month\) on [\s\S]*subscription_schedule\.created \(delivered\)/,
    );
    assert.match(
      (await page.textContent('.pending')) ?? '',
      /^Changes to Team \(\$49\.00\/month\)/,
    );
    const schedule = String((await stripe.subscriptions.retrieve(id)).schedule);

    assert.match(
      await press(page, /^Cancel at period end$/),
      /will be canceled at the end of the period[\s\S]*subscription_schedule\.released \(delivered\)/,
    );
    assert.equal(await page.locator('.pending').count(), 0);
    assert.equal((await stripe.subscriptionSchedules.retrieve(schedule)).status, 'released');
    await page.close();
  });
});
