// Credits as a person walks them in a browser on `npm start`'s embedded defaults: sign in on
// /billing, see the free month's credits, buy a pack with its button, pay on the simulator's page,
// back on /billing the balance has it; the backend spends with `npm run token -- --service`'s
// kind of token; a refund from the simulator's dashboard takes the refunded share back; /billing's
// ledger shows each entry. A bank debit's pack adds nothing until the dashboard settles it
// (checkout.session.async_payment_succeeded).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEV_SERVICE_CLIENT, loadConfig } from '../../src/config.ts';
import { devIssuerUrl, signToken } from '../../src/dev/identity-provider.ts';
import { loadOrCreateSigningKey } from '../../src/dev/signing-key.ts';
import { devToken, embeddedServiceWithBrowser, until } from '../helpers/browser.ts';
import { onPostgres } from '../helpers/database.ts';

const ARTIFACTS = new URL('../../test-artifacts/credits/', import.meta.url).pathname;

async function serviceToken(env: Record<string, string>): Promise<string> {
  const config = loadConfig({ ...env });
  return signToken(await loadOrCreateSigningKey(env.DATA_DIR!), {
    sub: 'backend',
    email: undefined,
    issuer: devIssuerUrl(config.host, config.port),
    audience: config.identity.audience,
    extra: { scope: 'billing:credits', client_id: DEV_SERVICE_CLIENT, gty: 'client-credentials' },
  } as Parameters<typeof signToken>[1]);
}

describe(
  'credits in the browser on the embedded defaults',
  { skip: onPostgres && 'runs once, in the PGlite half' },
  () => {
    const stack = embeddedServiceWithBrowser('billing-credits-e2e', ARTIFACTS);

    test('buy a pack, see it, spend it, refund it, read the ledger', async () => {
      const { service, browser, env } = stack;
      const token = await devToken(env, 'credit-user', 'credit@example.com');
      const balance = async () =>
        (
          (await (
            await fetch(`${service.url}/api/v1/credits`, {
              headers: { authorization: `Bearer ${token}` },
            })
          ).json()) as { balance: number }
        ).balance;
      const page = await browser.newPage();
      await page.goto(`${service.url}/billing`);
      await page.fill('#token', token);
      await page.getByRole('button', { name: /show my account/i }).click();
      await page.waitForSelector('#credit-balance');
      assert.equal(await page.textContent('#credit-balance'), '100', "the free tier's month");

      await Promise.all([
        page.waitForURL(/\/checkout\/cs_/),
        page.getByRole('button', { name: /Buy 500 credits for 9\.00 USD/ }).click(),
      ]);
      await Promise.all([
        page.waitForURL(/\/billing$/, { waitUntil: 'commit' }),
        page.getByRole('button', { name: 'Pay $9.00', exact: true }).click(),
      ]);
      assert.equal(await until(balance, (b) => b === 600), 600);
      await page.reload();
      assert.equal(await page.textContent('#credit-balance'), '600');
      assert.equal(await page.textContent('#credit-purchased'), '500');

      const spent = await fetch(`${service.url}/api/v1/credits/spend`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${await serviceToken(env)}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          subject: { type: 'user', idp_id: 'credit-user' },
          amount: 150,
          idempotency_key: 'browser-walk-1',
          reason: 'generated images',
        }),
      });
      assert.equal(spent.status, 200);
      assert.deepEqual(await spent.json(), { balance: 450 }, 'the grant first: 0 + 450 purchased');

      const simulatorUrl = `http://127.0.0.1:${env.PAYMENTS_SIMULATOR_PORT}`;
      const dashboard = await browser.newPage();
      await dashboard.goto(`${simulatorUrl}/`);
      await dashboard.fill('input[aria-label="Amount to refund"]', '4.50');
      await dashboard.getByRole('button', { name: 'Refund' }).click();
      // 450 of 900 cents refunded: half the pack, 250 credits, all of them still purchased.
      assert.equal(await until(balance, (b) => b === 200), 200);
      await page.reload();
      const ledger = await page.textContent('#credit-ledger');
      assert.match(ledger ?? '', /refund\s*-250\s*200\s*pack small, 450 of 900 refunded/);
      assert.match(ledger ?? '', /spend\s*-150[\s\S]*generated images/);
      assert.match(ledger ?? '', /purchase\s*\+500/);
      assert.match(ledger ?? '', /grant\s*\+100/);
      await page.screenshot({ path: `${ARTIFACTS}billing-credits.png`, fullPage: true });

      // Paid by bank debit: nothing until the payment settles, then the pack once.
      await Promise.all([
        page.waitForURL(/\/checkout\/cs_/),
        page.getByRole('button', { name: /Buy 2500 credits/ }).click(),
      ]);
      await Promise.all([
        page.waitForURL(/\/billing$/, { waitUntil: 'commit' }),
        page.getByRole('button', { name: /by bank debit/ }).click(),
      ]);
      await dashboard.reload();
      assert.equal(await balance(), 200, 'a debit still processing adds nothing');
      await dashboard.getByRole('button', { name: 'Bank debit settles' }).click();
      assert.equal(await until(balance, (b) => b === 2700), 2700);
    });
  },
);
