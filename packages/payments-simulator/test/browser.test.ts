// The simulator's pages in a real browser (Chromium): the Pay button on the hosted checkout
// page lands on success_url with the session id, and a dashboard button acts. Real browsers send
// the security headers' consequences (CSP form-action, the Origin of a same-origin post) that a
// plain HTTP client does not.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { onPostgres, openCheckout, pay, startStack, type SimulatorStack } from './harness.ts';

const CHROMIUM = '/usr/bin/chromium';
const skip = onPostgres
  ? 'runs once, in the PGlite half'
  : !existsSync(CHROMIUM)
    ? `no browser at ${CHROMIUM}`
    : false;

describe('simulator pages in a browser', { skip }, () => {
  let stack: SimulatorStack;
  let browser: Browser;
  before(async () => {
    stack = await startStack();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
  });
  after(async () => {
    await browser?.close();
    await stack?.close();
  });

  test('Pay on the hosted page goes to success_url with the session id, after the webhooks', async () => {
    const { stripe, receiver } = stack;
    // The merchant: another origin, where the browser lands after paying.
    const merchant = createServer((_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html' }).end('<p>merchant</p>'),
    );
    await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
    const app = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;
    const customer = await stripe.customers.create({ email: 'browser@example.com' });
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      customer: customer.id,
      line_items: [{ price: 'price_sim_team', quantity: 1 }],
      success_url: `${app}/billing/success?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${app}/billing/cancel`,
    });
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (message) => violations.push(message.text()));
    await page.goto(session.url!);
    assert.match((await page.textContent('body')) ?? '', /Team[\s\S]*\$49\.00[\s\S]*per month/);
    await Promise.all([
      page.waitForURL(/\/billing\/success\?session_id=cs_test_/),
      page.getByRole('button', { name: /pay/i }).click(),
    ]);
    merchant.close();
    assert.equal(page.url(), `${app}/billing/success?session_id=${session.id}`);
    assert.deepEqual(
      receiver.events.slice(-3).map((e) => e.type),
      ['checkout.session.completed', 'customer.subscription.created', 'invoice.paid'],
    );
    assert.deepEqual(violations, []);
    await page.close();
  });

  test('a dashboard button renews a subscription', async () => {
    const { stripe, receiver, simulator } = stack;
    const { session } = await openCheckout(stripe, 'browser-renewer');
    await pay(simulator, session.id);
    const subscription = (await stripe.checkout.sessions.retrieve(session.id))
      .subscription as string;
    const page = await browser.newPage();
    await page.goto(`${simulator.url}/`);
    await page.click(`form[action="/dashboard/subscriptions/${subscription}/renew"] button`);
    await page.waitForSelector('.notice');
    assert.match(
      (await page.textContent('.notice')) ?? '',
      /Payment of \$15\.00 succeeded[\s\S]*invoice\.paid \(delivered\)/,
    );
    assert.equal(receiver.events.at(-1)!.type, 'customer.subscription.updated');
    await page.close();
  });
});
