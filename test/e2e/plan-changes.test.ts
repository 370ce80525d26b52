// Changing plan in the provider's portal, in a real browser, on `npm start`'s embedded defaults:
// Pay for Pro by the month, switch to a year (an upgrade, applied at once), to Team by the year
// (another), then to Pro by the month (a downgrade: GET /billing/subscription shows the change to
// come at once, /billing says it in words, and the tier stays Team), cancel at period end while
// it waits (the change is dropped and the cancellation shown), and the simulator dashboard's End
// period ends it. Every change reaches the service only as signed webhooks. Screenshots are kept
// under test-artifacts/plan-changes/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { SubscriptionSummary } from '../../src/domain/billing/subscription-summary.ts';
import { devToken, embeddedServiceWithBrowser, until } from '../helpers/browser.ts';
import { onPostgres } from '../helpers/database.ts';

const ARTIFACTS = new URL('../../test-artifacts/plan-changes/', import.meta.url).pathname;

/** Clicks a portal button and waits for the page it lands on, with its notice. */
async function press(page: Page, name: RegExp): Promise<string> {
  await Promise.all([
    page.waitForURL(/notice=/, { waitUntil: 'load' }),
    page.getByRole('button', { name }).click(),
  ]);
  return (await page.textContent('.notice')) ?? '';
}

describe(
  'plan changes in the portal on the embedded defaults',
  { skip: onPostgres && 'runs once, in the PGlite half' },
  () => {
    const stack = embeddedServiceWithBrowser('billing-plan-changes', ARTIFACTS);

    test('monthly to yearly at once, a downgrade pending until cancelled, End period', async () => {
      const { service, browser, env } = stack;
      const token = await devToken(env, 'changer', 'changer@example.com');
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const post = async (path: string) =>
        (
          (await (
            await fetch(`${service.url}/api/v1/billing/${path}`, {
              method: 'POST',
              headers,
              body: '{}',
            })
          ).json()) as { url: string }
        ).url;
      const summary = async () =>
        (await (
          await fetch(`${service.url}/api/v1/billing/subscription`, { headers })
        ).json()) as SubscriptionSummary;
      const shot = (page: Page, name: string) =>
        page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

      const page = await browser.newPage();
      await page.goto(await post('checkout'));
      await Promise.all([
        page.waitForURL(/\/billing\/success/, { waitUntil: 'commit' }),
        page.getByRole('button', { name: /pay/i }).click(),
      ]);
      const paid = await until(summary, (s) => s.tier === 'pro');
      assert.deepEqual(
        [paid.tier, paid.subscription?.plan, paid.subscription?.interval],
        ['pro', 'pro', 'month'],
      );

      await page.goto(await post('portal'));
      assert.match(
        await press(page, /^Switch to Pro \(\$150\.00\/year\)$/),
        /^Switched to Pro \(\$150\.00\/year\)[\s\S]*customer\.subscription\.updated \(delivered\)/,
      );
      const yearly = await until(summary, (s) => s.subscription?.interval === 'year');
      assert.deepEqual(
        [yearly.tier, yearly.subscription?.interval, yearly.subscription?.pending_change],
        ['pro', 'year', null],
      );
      assert.match(await press(page, /^Switch to Team \(\$490\.00\/year\)$/), /^Switched to Team/);
      assert.equal((await until(summary, (s) => s.tier === 'team')).tier, 'team');
      await shot(page, '1-team-yearly');

      assert.match(
        await press(page, /^Switch to Pro \(\$15\.00\/month\) from /),
        /^Your plan changes to Pro \(\$15\.00\/month\) on [\s\S]*subscription_schedule\.created \(delivered\)/,
      );
      const pending = await summary();
      assert.deepEqual(pending.subscription?.pending_change, {
        plan: 'pro',
        interval: 'month',
        effective_at: pending.subscription?.current_period_end,
      });
      assert.deepEqual(
        [pending.tier, pending.subscription?.plan, pending.subscription?.interval],
        ['team', 'team', 'year'],
        'the tier waits for the period end',
      );
      await shot(page, '2-downgrade-pending');
      const portal = page.url();
      await page.goto(`${service.url}/billing`);
      await page.fill('#token', token);
      await Promise.all([page.waitForURL(`${service.url}/billing`), page.press('#token', 'Enter')]);
      assert.match(
        (await page.textContent('.account')) ?? '',
        /active until[\s\S]*Billed yearly\.[\s\S]*Switches to pro, monthly, on \d{4}-\d\d-\d\d \d\d:\d\d UTC\./,
      );
      await shot(page, '3-billing-page');
      await page.goto(portal);

      assert.match(
        await press(page, /^Cancel at period end$/),
        /will be canceled at the end of the period[\s\S]*subscription_schedule\.released \(delivered\)/,
      );
      const canceling = await summary();
      assert.deepEqual(
        [
          canceling.tier,
          canceling.subscription?.cancel_at_period_end,
          canceling.subscription?.cancel_at,
          canceling.subscription?.pending_change,
        ],
        ['team', true, canceling.subscription?.current_period_end, null],
      );
      const subscription = await page.getAttribute('.subscription', 'data-subscription');
      await shot(page, '4-canceling');

      await page.goto(`${new URL(page.url()).origin}/`);
      await Promise.all([
        page.waitForURL(/notice=/),
        page.click(`form[action="/dashboard/subscriptions/${subscription}/renew"] button`),
      ]);
      assert.match(
        (await page.textContent('.notice')) ?? '',
        /The period ended and the subscription is now canceled/,
      );
      const ended = await until(summary, (s) => s.tier === 'free');
      assert.deepEqual(
        [ended.tier, ended.subscription?.status, ended.subscription?.pending_change],
        ['free', 'canceled', null],
      );
      await page.close();
    });
  },
);
