// The whole flow a person goes through, in a real browser, on `npm start`'s embedded defaults
// (PGlite, development identity provider, payment simulator): token -> free -> checkout ->
// the simulator's page -> Pay -> the paid tier -> cancel at the provider -> free again.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import Stripe from 'stripe';
import { loadConfig } from '../../src/config.ts';
import { devToken, launchChromium, until } from '../helpers/browser.ts';
import { onPostgres } from '../helpers/database.ts';
import { freePort } from '../helpers/free-port.ts';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.ts';

describe('browser flow on the embedded defaults', { skip: onPostgres && 'runs once, in the PGlite half' }, () => {
  let service: ServiceProcess;
  let browser: Browser;
  let dataDir: string;
  let env: Record<string, string>;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'billing-e2e-'));
    env = { DATA_DIR: dataDir, PORT: String(await freePort()), PAYMENTS_SIMULATOR_PORT: String(await freePort()), DATABASE_URL: '', NODE_ENV: 'development' };
    service = await startServiceProcess(env);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('pay in the browser, get the paid tier, cancel, back to free', async () => {
    const started = performance.now();
    const config = loadConfig({ ...env });
    const token = await devToken(env, 'browser-user', 'browser@example.com');
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const me = async () => ((await (await fetch(`${service.url}/api/v1/users/me`, { headers })).json()) as { tier: string }).tier;
    assert.equal(await me(), 'free');

    const checkout = await fetch(`${service.url}/api/v1/billing/checkout`, { method: 'POST', headers, body: '{}' });
    assert.equal(checkout.status, 200);
    const { url } = (await checkout.json()) as { url: string };

    const page = await browser.newPage();
    await page.goto(url);
    assert.match(await page.content(), /pro/i);
    await page.getByRole('button', { name: /pay/i }).click();
    await page.waitForURL(/\/billing\/success\?session_id=cs_/, { timeout: 60_000, waitUntil: 'commit' });
    await page.waitForSelector('#tier', { timeout: 60_000 });
    assert.equal(await page.textContent('#tier'), 'pro');
    assert.equal(await me(), 'pro');

    const simulator = new URL(url).origin;
    const stripe = new Stripe(config.payments.apiKey, { host: '127.0.0.1', port: new URL(simulator).port, protocol: 'http' });
    const session = await stripe.checkout.sessions.retrieve(url.split('/').pop()!);
    await stripe.subscriptions.cancel(String(session.subscription));
    assert.equal(await until(me, (tier) => tier === 'free'), 'free');
    console.log(`# browser flow took ${((performance.now() - started) / 1000).toFixed(1)} s`);
  });
});
