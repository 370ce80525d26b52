// An organisation's whole loop in a real browser, on the embedded defaults, with the tokens
// `npm run token -- --org acme --role admin|member` prints: a member's /billing shows the
// organisation without its buttons and says who may change it; the admin starts a team checkout
// from /billing and pays it on the simulator's page (for the two members seen); the member's
// /billing, /users/me and /billing/subscription then give the team tier from the organisation; a
// new member signing in moves the subscription's quantity to 3 (the seat engine pushes it: the
// organisation's billing and the simulator's dashboard both say so); a member's post to the team
// checkout and a forged admin token are refused. Screenshots under test-artifacts/organization/.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { bearer } from '../helpers/app.ts';
import { embeddedServiceWithBrowser, until } from '../helpers/browser.ts';
import { runCli } from '../helpers/cli.ts';
import { onPostgres } from '../helpers/database.ts';

const ARTIFACTS = new URL('../../test-artifacts/organization/', import.meta.url).pathname;
const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe(
  "an organisation's billing in the browser: an admin pays, members get the tier, seats follow",
  { skip: onPostgres && 'runs once, in the PGlite half' },
  () => {
    const stack = embeddedServiceWithBrowser('billing-e2e-org', ARTIFACTS);

    /** What `npm run token -- --sub <sub> --org acme --role <role>` prints for this service. */
    const teamToken = async (sub: string, role: string) => {
      const run = await runCli(['token', '--sub', sub, '--org', 'acme', '--role', role], stack.env);
      assert.equal(run.code, 0, run.stderr);
      return run.stdout.trim();
    };
    const api = async (path: string, token: string) =>
      (await fetch(`${stack.service.url}/api/v1/${path}`, { headers: bearer(token) })).json();

    /** A page of its own browser context (its own cookies), signed in on /billing with `token`. */
    async function signedIn(token: string): Promise<{ context: BrowserContext; page: Page }> {
      const context = await stack.browser.newContext();
      const page = await context.newPage();
      await page.goto(`${stack.service.url}/billing`);
      await page.fill('#token', token);
      await Promise.all([
        page.waitForURL(`${stack.service.url}/billing`),
        page.getByRole('button', { name: 'Show my account' }).click(),
      ]);
      return { context, page };
    }
    const shot = (page: Page, name: string) =>
      page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
    /**
     * Submits a form built in the page, as a page of ours would post it. The page is on /billing
     * before and after: waiting for that URL alone returns at once, before the answer is shown;
     * the new document's load says it is.
     */
    const postFrom = async (page: Page, action: string, fields: Record<string, string> = {}) => {
      await Promise.all([
        page.waitForEvent('load'),
        page.evaluate(
          ([to, values]) => {
            const form = document.createElement('form');
            form.method = 'post';
            form.action = to;
            for (const [name, value] of Object.entries(values)) {
              const input = document.createElement('input');
              Object.assign(input, { type: 'hidden', name, value });
              form.append(input);
            }
            document.body.append(form);
            form.submit();
          },
          [action, fields] as const,
        ),
      ]);
      await page.waitForURL(`${stack.service.url}/billing`);
    };

    test('admin pays for the team, a member gets its tier, a new member moves the quantity; members cannot buy', async () => {
      const { service } = stack;
      const [adminToken, memberToken, newcomerToken] = await Promise.all([
        teamToken('acme-admin', 'admin'),
        teamToken('acme-member', 'member'),
        teamToken('acme-newcomer', 'member'),
      ]);

      const member = await signedIn(memberToken);
      const text = async (page: Page) => (await page.textContent('body')) ?? '';
      assert.equal(await member.page.textContent('#org'), 'acme');
      assert.equal(await member.page.textContent('#org-tier'), 'free');
      assert.match(
        (await member.page.textContent('#org-managers')) ?? '',
        /Only a member whose token gives one of the roles owner, admin can buy or change it/,
      );
      for (const name of ['Start a team checkout', "Open the team's billing portal"])
        assert.equal(await member.page.getByRole('button', { name }).count(), 0, name);
      await shot(member.page, '1-member-before');

      const admin = await signedIn(adminToken);
      assert.equal(await admin.page.textContent('#org-role'), 'admin');
      assert.match(await text(admin.page), /2 active members/);
      await shot(admin.page, '2-admin-before');
      await Promise.all([
        admin.page.waitForURL(/\/checkout\/cs_/),
        admin.page.getByRole('button', { name: 'Start a team checkout' }).click(),
      ]);
      assert.match((await admin.page.textContent('.quantity')) ?? '', /^2 × Team/);
      if ((await admin.page.locator('input[name=email]').count()) > 0)
        await admin.page.fill('input[name=email]', 'billing@acme.example');
      await shot(admin.page, '3-checkout');
      await Promise.all([
        admin.page.waitForURL(/\/billing\/org\/success/, { waitUntil: 'commit' }),
        admin.page.getByRole('button', { name: /^Pay / }).click(),
      ]);
      await admin.page.waitForSelector('#org-tier', { timeout: 60_000 });
      assert.match(await text(admin.page), /acme is now on team, for 2 seats/);
      await shot(admin.page, '4-team-success');

      await member.page.reload();
      assert.equal(await member.page.textContent('#tier'), 'team');
      assert.equal(await member.page.textContent('#tier-source'), 'through your organisation');
      assert.equal(await member.page.textContent('#org-status'), 'active');
      assert.equal(await member.page.textContent('#org-billed'), '2');
      assert.equal(await member.page.getByRole('button', { name: 'Start a checkout' }).count(), 0);
      assert.equal(await member.page.locator('#org-managers').count(), 1);
      await shot(member.page, '5-member-team');
      assert.equal((await api('users/me', memberToken)).tier, 'team');
      const summary = await api('billing/subscription', memberToken);
      assert.deepEqual([summary.tier, summary.tier_source], ['team', 'organization']);

      // A member's post to the team checkout, from their own signed-in page: the role decides.
      await postFrom(member.page, '/billing/org/checkout');
      assert.match(
        (await member.page.textContent('.error')) ?? '',
        /needs one of the roles owner, admin; your token gives member/,
      );
      // A token claiming the admin role that no key of ours signed.
      const forged = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ sub: 'acme-member', org_id: 'acme', org_role: 'admin', exp: 4_102_444_800 })}.`;
      await postFrom(member.page, '/billing/org/portal', { token: forged });
      assert.match((await member.page.textContent('.error')) ?? '', /^Invalid token: /);
      await shot(member.page, '6-member-refused');

      assert.equal((await api('users/me', newcomerToken)).tier, 'team');
      const billed = await until(
        async () => (await api('orgs/current/billing', adminToken)).seats,
        (seats) => seats.billed === 3,
      );
      assert.deepEqual(billed, { active: 3, reported: null, billed: 3 });
      await admin.page.goto(`${service.url}/billing`);
      assert.equal(await admin.page.textContent('#org-billed'), '3');
      await Promise.all([
        admin.page.waitForURL(/:\d+\/$/),
        admin.page.getByRole('link', { name: 'Payments simulator dashboard' }).click(),
      ]);
      assert.match(await text(admin.page), /3 × Team monthly/);
      await shot(admin.page, '7-dashboard-quantity');
      await Promise.all([member.context.close(), admin.context.close()]);
    });
  },
);
