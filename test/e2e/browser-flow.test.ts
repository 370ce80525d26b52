// The whole flow a person goes through, in a real browser, on `npm start`'s embedded defaults
// (PGlite, development identity provider, payment simulator): token -> free -> checkout ->
// the simulator's page -> Pay -> the paid tier -> cancel at the provider -> free again. And
// self-service: Pay -> pro -> /billing opens the portal -> switch to Team -> team -> cancel at
// period end -> still team -> renew (resume) -> cancel at period end again and end the period from
// the simulator's dashboard -> free; Resend there gets `duplicate`. And the loop a person makes
// with no terminal but for the token: from `/`, a mistyped token explained, sign in on /billing and
// see the account, checkout, pay, the portal, cancel now, a new checkout, cancel it, and a new one
// again. Every change reaches the service only as signed webhooks. Screenshots of the portal are kept under test-artifacts/portal/.
// One service for both: under load, two starting at once took longer than the start's bound.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import Stripe from 'stripe';
import { loadConfig } from '../../src/config.ts';
import { devToken, embeddedServiceWithBrowser, until } from '../helpers/browser.ts';
import { onPostgres } from '../helpers/database.ts';

const ARTIFACTS = new URL('../../test-artifacts/portal/', import.meta.url).pathname;

describe(
  'browser flow on the embedded defaults',
  { skip: onPostgres && 'runs once, in the PGlite half' },
  () => {
    const stack = embeddedServiceWithBrowser('billing-e2e', ARTIFACTS);

    test('pay in the browser, get the paid tier, cancel, back to free', async () => {
      const { service, browser, env } = stack;
      const started = performance.now();
      const config = loadConfig({ ...env });
      const token = await devToken(env, 'browser-user', 'browser@example.com');
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const me = async () =>
        (
          (await (await fetch(`${service.url}/api/v1/users/me`, { headers })).json()) as {
            tier: string;
          }
        ).tier;
      assert.equal(await me(), 'free');

      const checkout = await fetch(`${service.url}/api/v1/billing/checkout`, {
        method: 'POST',
        headers,
        body: '{}',
      });
      assert.equal(checkout.status, 200);
      const { url } = (await checkout.json()) as { url: string };

      const page = await browser.newPage();
      await page.goto(url);
      assert.match(await page.content(), /pro/i);
      await page.getByRole('button', { name: /pay/i }).click();
      await page.waitForURL(/\/billing\/success\?session_id=cs_/, {
        timeout: 60_000,
        waitUntil: 'commit',
      });
      await page.waitForSelector('#tier', { timeout: 60_000 });
      assert.equal(await page.textContent('#tier'), 'pro');
      assert.equal(await me(), 'pro');

      const simulator = new URL(url).origin;
      const stripe = new Stripe(config.payments.apiKey, {
        host: '127.0.0.1',
        port: new URL(simulator).port,
        protocol: 'http',
      });
      const session = await stripe.checkout.sessions.retrieve(url.split('/').pop()!);
      await stripe.subscriptions.cancel(String(session.subscription));
      assert.equal(await until(me, (tier) => tier === 'free'), 'free');
      console.log(`# browser flow took ${((performance.now() - started) / 1000).toFixed(1)} s`);
    });

    test('pay, open the portal from /billing, switch, cancel, resume, end the period', async () => {
      const { service, browser, env } = stack;
      const token = await devToken(env, 'portal-user', 'portal@example.com');
      const me = async () =>
        (
          (await (
            await fetch(`${service.url}/api/v1/users/me`, {
              headers: { authorization: `Bearer ${token}` },
            })
          ).json()) as { tier: string }
        ).tier;
      const shot = (page: Page, name: string) =>
        page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
      /** Clicks a portal button and waits for the page it lands on, with its notice. */
      const press = async (page: Page, name: RegExp) => {
        await Promise.all([
          page.waitForURL(/notice=/, { waitUntil: 'load' }),
          page.getByRole('button', { name }).first().click(),
        ]);
        return (await page.textContent('.notice')) ?? '';
      };

      const checkout = await fetch(`${service.url}/api/v1/billing/checkout`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{}',
      });
      const page = await browser.newPage();
      await page.goto(((await checkout.json()) as { url: string }).url);
      await Promise.all([
        page.waitForURL(/\/billing\/success/, { waitUntil: 'commit' }),
        page.getByRole('button', { name: /pay/i }).click(),
      ]);
      await page.waitForSelector('#tier', { timeout: 60_000 });
      assert.equal(await page.textContent('#tier'), 'pro');

      await page.getByRole('link', { name: 'Manage your subscription' }).click();
      await page.fill('#token', token);
      await Promise.all([
        page.waitForURL(/\/p\/session\/bps_/),
        page.getByRole('button', { name: 'Open the billing portal' }).click(),
      ]);
      assert.equal(await page.textContent('.plan'), 'Pro');
      await shot(page, '1-portal-pro');

      assert.match(
        await press(page, /Switch to Team/),
        /Switched to Team[\s\S]*customer\.subscription\.updated \(delivered\)[\s\S]*invoice\.paid \(delivered\)/,
      );
      assert.equal(await page.textContent('.plan'), 'Team');
      assert.equal(await until(me, (tier) => tier === 'team'), 'team');
      await shot(page, '2-portal-team');

      assert.match(
        await press(page, /Cancel at period end/),
        /will be canceled at the end of the period[\s\S]*\(delivered\)/,
      );
      assert.equal(await me(), 'team', 'paid until the period ends');
      await shot(page, '3-portal-canceling');

      assert.match(
        await press(page, /Renew subscription/),
        /cancellation was withdrawn[\s\S]*\(delivered\)/,
      );
      assert.equal(await me(), 'team');
      assert.match(await press(page, /Cancel at period end/), /will be canceled/);
      const subscription = await page.getAttribute('.subscription', 'data-subscription');
      await shot(page, '4-portal-canceling-again');

      await Promise.all([
        page.waitForURL(`${service.url}/billing`),
        page.getByRole('link', { name: /Return to/ }).click(),
      ]);
      await Promise.all([
        page.waitForURL(/:\d+\/$/),
        page.getByRole('link', { name: 'Payments simulator dashboard' }).click(),
      ]);
      await Promise.all([
        page.waitForURL(/notice=/),
        page.click(`form[action="/dashboard/subscriptions/${subscription}/renew"] button`),
      ]);
      assert.match(
        (await page.textContent('.notice')) ?? '',
        /The period ended and the subscription is now canceled/,
      );
      assert.equal(await until(me, (tier) => tier === 'free'), 'free');

      await Promise.all([
        page.waitForURL(/notice=/),
        page.locator('tr[data-event] button', { hasText: 'Resend' }).first().click(),
      ]);
      assert.match(
        (await page.textContent('.notice')) ?? '',
        /same event id\): the service answered 200 \{"status":"duplicate"\}/,
      );
      await shot(page, '5-dashboard');
    });
    test('in the browser alone: / -> your billing -> checkout -> pay -> portal -> cancel now -> a new checkout, twice over', async () => {
      const { service, browser, env } = stack;
      const token = await devToken(env, 'loop-user', 'loop@example.com'); // the one step in a terminal
      const page = await browser.newPage();
      const body = async () => (await page.textContent('body')) ?? '';
      const startCheckout = () =>
        Promise.all([
          page.waitForURL(/\/checkout\/cs_/),
          page.getByRole('button', { name: 'Start a checkout' }).click(),
        ]);

      await page.goto(`${service.url}/`);
      await Promise.all([
        page.waitForURL(`${service.url}/billing`),
        page.getByRole('link', { name: 'your billing' }).first().click(),
      ]);
      // A token mistyped: /billing says why; reloading the page shows it again, posting nothing.
      await page.fill('#token', 'not-a-token');
      await Promise.all([page.waitForURL(`${service.url}/billing`), page.press('#token', 'Enter')]);
      assert.match((await page.textContent('.error')) ?? '', /^Invalid token: malformed token/);
      await page.reload();
      assert.equal(await page.locator('.error').count(), 0);
      // Enter shows the account first, nothing bought.
      await page.fill('#token', token);
      await Promise.all([page.waitForURL(`${service.url}/billing`), page.press('#token', 'Enter')]);
      assert.match(await body(), /Signed in as loop-user[\s\S]*Tier\s*free[\s\S]*Features\s*core/);
      await startCheckout();
      await Promise.all([
        page.waitForURL(/\/billing\/success/, { waitUntil: 'commit' }),
        page.getByRole('button', { name: /pay/i }).click(),
      ]);
      await page.waitForSelector('#tier', { timeout: 60_000 });

      await Promise.all([
        page.waitForURL(`${service.url}/billing`),
        page.getByRole('link', { name: 'Manage your subscription' }).click(),
      ]);
      assert.match(
        await body(),
        /Signed in as loop-user[\s\S]*Tier\s*pro[\s\S]*subscription is active/,
      );
      await Promise.all([
        page.waitForURL(/\/p\/session\/bps_/),
        page.getByRole('button', { name: 'Open the billing portal' }).click(),
      ]);
      await Promise.all([
        page.waitForURL(/notice=/, { waitUntil: 'load' }),
        page.getByRole('button', { name: 'Cancel now' }).first().click(),
      ]);
      await Promise.all([
        page.waitForURL(`${service.url}/billing`),
        page.getByRole('link', { name: /Return to/ }).click(),
      ]);
      const canceled = await until(
        async () => (await page.reload(), body()),
        (text) => /Tier\s*free/.test(text),
      );
      assert.match(canceled, /subscription was canceled/);

      await startCheckout();
      await Promise.all([
        page.waitForURL(`${service.url}/billing/cancel`),
        page.getByRole('button', { name: 'Cancel and return' }).click(),
      ]);
      await startCheckout();
      assert.match(
        await body(),
        /Pay .* and subscribe/,
        'a new checkout, from the page the last one ended on',
      );
    });
  },
);
