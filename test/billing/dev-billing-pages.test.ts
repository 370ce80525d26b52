// The development pages on the embedded defaults: success, cancel and /billing link to the billing
// page, the simulator's dashboard and the API docs; /billing opens the portal for a development
// token posted in a form (verified, never shown back, through the same PortalService); none of it
// exists when a real provider is configured.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe(`development billing pages (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const openPortal = (token: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/billing/portal', headers: { ...FORM, ...headers }, payload: new URLSearchParams({ token }).toString() });

  test('success, cancel and /billing link to the billing page, the dashboard and the API docs', async () => {
    for (const url of ['/billing/success?session_id=cs_unknown', '/billing/cancel', '/billing']) {
      const response = await t.app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 200, url);
      for (const link of ['href="/billing"', 'href="/billing/dashboard"', 'href="/docs"']) assert.ok(response.body.includes(link), `${url} links ${link}`);
    }
    const dashboard = await t.app.inject({ method: 'GET', url: '/billing/dashboard' });
    assert.equal(dashboard.statusCode, 303);
    assert.equal(dashboard.headers.location, `${t.composition.simulatorUrl}/`);
  });

  test('/billing posts a token to /billing/portal, which sends the browser to the portal coming back to /billing', async () => {
    const token = await t.token('dev-page-user');
    assert.equal((await t.app.inject({ method: 'POST', url: '/api/v1/billing/checkout', headers: bearer(token), payload: {} })).statusCode, 200);
    assert.match((await t.app.inject({ method: 'GET', url: '/billing' })).body, /<form method="post" action="\/billing\/portal">[\s\S]*name="token" type="password"/);
    const response = await openPortal(token);
    assert.equal(response.statusCode, 303);
    const portal = String(response.headers.location);
    assert.match(portal, new RegExp(`^${t.composition.simulatorUrl}/p/session/bps_`));
    assert.match(await (await fetch(portal)).text(), new RegExp(`href="${t.config.appUrl}/billing"`));
  });

  test('no token, a bad token, no customer yet, a cross-site post: a page that says so and shows no token', async () => {
    const missing = await openPortal('');
    assert.equal(missing.statusCode, 401);
    assert.match(missing.body, /Not authenticated/);
    const bad = await openPortal('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.secret-looking-part');
    assert.equal(bad.statusCode, 401);
    assert.match(bad.body, /Invalid token/);
    assert.ok(!bad.body.includes('secret-looking-part'));
    const newcomer = await t.token('dev-page-newcomer');
    const nothing = await openPortal(newcomer);
    assert.equal(nothing.statusCode, 409);
    assert.match(nothing.body, /nothing to manage yet/);
    assert.ok(!nothing.body.includes(newcomer));
    assert.equal((await openPortal(newcomer, { 'sec-fetch-site': 'cross-site' })).statusCode, 403);
  });
});

describe(`no development pages with a real provider (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ PAYMENTS_API_KEY: 'sk_test_x', PAYMENTS_API_BASE: 'http://127.0.0.1:9', PAYMENTS_WEBHOOK_SECRET: 'whsec_x', BILLING_PRICES: 'pro=price_1' });
  });
  after(() => t.close());

  test('/billing and /billing/portal are not there', async () => {
    assert.equal((await t.app.inject({ method: 'GET', url: '/billing' })).statusCode, 404);
    assert.equal((await t.app.inject({ method: 'POST', url: '/billing/portal', headers: FORM, payload: 'token=x' })).statusCode, 404);
  });
});
