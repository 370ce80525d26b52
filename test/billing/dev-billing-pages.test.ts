// The development pages on the embedded defaults: success, cancel and /billing link to the billing
// page, the simulator's dashboard and the API docs; /billing opens the portal for a development
// token posted in a form (verified, never shown back, through the same PortalService); none of it
// exists when a real provider is configured.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateSigningKey } from '../../src/dev/signing-key.ts';
import { signToken } from '../../src/dev/identity-provider.ts';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { FORM, landing, postForm, setCookies } from '../helpers/billing-forms.ts';
import { databaseLabel } from '../helpers/database.ts';
import { providerCalls } from '../helpers/simulator-client.ts';

describe(`development billing pages (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const openPortal = (token: string, headers: Record<string, string> = {}) =>
    postForm(t, '/billing/portal', { token }, headers);

  test('success, cancel and /billing link to the billing page, the dashboard and the API docs', async () => {
    for (const url of ['/billing/success?session_id=cs_unknown', '/billing/cancel', '/billing']) {
      const response = await t.app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 200, url);
      for (const link of ['href="/billing"', 'href="/billing/dashboard"', 'href="/docs"'])
        assert.ok(response.body.includes(link), `${url} links ${link}`);
    }
    const dashboard = await t.app.inject({ method: 'GET', url: '/billing/dashboard' });
    assert.equal(dashboard.statusCode, 303);
    assert.equal(dashboard.headers.location, `${t.composition.simulatorUrl}/`);
  });

  test('/billing posts a token to /billing/portal, which sends the browser to the portal coming back to /billing', async () => {
    const token = await t.token('dev-page-user');
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/billing/checkout',
          headers: bearer(token),
          payload: {},
        })
      ).statusCode,
      200,
    );
    assert.match(
      (await t.app.inject({ method: 'GET', url: '/billing' })).body,
      /name="token" type="password"[\s\S]*formaction="\/billing\/portal">Open the billing portal/,
    );
    const response = await openPortal(token);
    assert.equal(response.statusCode, 303);
    const portal = String(response.headers.location);
    assert.match(portal, new RegExp(`^${t.composition.simulatorUrl}/p/session/bps_`));
    assert.match(
      await (await fetch(portal)).text(),
      new RegExp(`href="${t.config.appUrl}/billing"`),
    );
  });

  test('no token, a bad token, no customer yet: back to /billing, which says so and shows no token; a cross-site post: 403', async () => {
    const missing = await landing(t, await openPortal(''));
    assert.match(missing.body, /<p class="error">Not authenticated: no token pasted/);
    const bad = await landing(
      t,
      await openPortal('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.secret-looking-part'),
    );
    assert.match(bad.body, /<p class="error">Invalid token/);
    assert.ok(!bad.body.includes('secret-looking-part'));
    const newcomer = await t.token('dev-page-newcomer');
    const nothing = await landing(t, await openPortal(newcomer));
    assert.match(nothing.body, /<p class="error">There is nothing to manage yet/);
    assert.ok(!nothing.body.includes(newcomer));
    assert.equal((await openPortal(newcomer, { 'sec-fetch-site': 'cross-site' })).statusCode, 403);
  });

  test('post-redirect-get: a refusal is shown once, by the GET that follows; reloading it posts nothing', async () => {
    const refused = await openPortal(await t.token('dev-page-once'));
    assert.equal(refused.statusCode, 303);
    const notice = setCookies(refused).find((line) => line.startsWith('billing_notice='))!;
    const cookie = notice.split(';')[0]!;
    const shown = await t.app.inject({ method: 'GET', url: '/billing', headers: { cookie } });
    assert.equal(shown.statusCode, 200);
    assert.match(shown.body, /nothing to manage yet/);
    assert.match(setCookies(shown).join('\n'), /billing_notice=; Path=\/billing; .*Max-Age=0/);
    const notices = [
      'billing_notice=info:%E0%A4%A', // not one the forms leave
      'billing_notice=warning:hello',
    ];
    for (const odd of notices) {
      const page = await t.app.inject({ method: 'GET', url: '/billing', headers: { cookie: odd } });
      assert.equal(page.statusCode, 200, odd);
      assert.doesNotMatch(page.body, /class="(info|error)"/);
    }
  });
});

describe(`the browser loop on /billing: sign in once, checkout, portal, a new checkout (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const post = (
    url: string,
    fields: Record<string, string>,
    headers: Record<string, string> = {},
  ) => postForm(t, url, fields, headers);
  const cookieOf = (response: { headers: Record<string, unknown> }) =>
    String(response.headers['set-cookie'] ?? '');

  test('/ in development links what to open, in order, and says how to get a token', async () => {
    const start = await t.app.inject({ method: 'GET', url: '/' });
    assert.equal(start.statusCode, 200);
    assert.match(
      start.body,
      /npm run token -- --sub alice --email alice@example.com[\s\S]*href="\/billing"[\s\S]*href="\/billing\/dashboard"[\s\S]*href="\/docs"/,
    );
  });

  test('a token pasted once starts a checkout and keeps the browser signed in, on /billing only', async () => {
    const token = await t.token('loop-user');
    const checkout = await post('/billing/checkout', { token });
    assert.equal(checkout.statusCode, 303, checkout.body);
    assert.match(
      String(checkout.headers.location),
      new RegExp(`^${t.composition.simulatorUrl}/checkout/cs_`),
    );
    const remembered =
      /^billing_dev_token=([^;]+); Path=\/billing; HttpOnly; SameSite=Strict; Max-Age=(\d+)$/.exec(
        cookieOf(checkout),
      );
    assert.equal(remembered?.[1], token);
    assert.ok(
      Number(remembered?.[2]) > 3500 && Number(remembered?.[2]) <= 3600,
      'kept no longer than the token is good',
    );

    const cookie = { cookie: `billing_dev_token=${token}` };
    const account = await t.app.inject({ method: 'GET', url: '/billing', headers: cookie });
    assert.equal(account.statusCode, 200);
    assert.match(
      account.body,
      /Signed in as <b>loop-user<\/b>[\s\S]*<dt>Tier<\/dt><dd><span class="tier free" id="tier">free<\/span>[\s\S]*no subscription yet/,
    );
    assert.match(
      account.body,
      /action="\/billing\/checkout"><button type="submit">Start a checkout[\s\S]*action="\/billing\/portal"><button type="submit">Open the billing portal/,
    );
    assert.ok(!account.body.includes(token), 'the token is never shown back');
    const portal = await post('/billing/portal', {}, cookie);
    assert.equal(portal.statusCode, 303, 'the cookie signs the portal form in');
    assert.match(String(portal.headers.location), /\/p\/session\/bps_/);

    const signedOut = await post('/billing/sign-out', {}, cookie);
    assert.match(cookieOf(signedOut), /^billing_dev_token=; .*Max-Age=0/);
    assert.match((await landing(t, signedOut)).body, /<p class="info">You are signed out\.<\/p>/);
  });

  test('look first: the token alone shows the account (tier, subscription, features, limits), no provider call', async () => {
    const form = (await t.app.inject({ method: 'GET', url: '/billing' })).body;
    assert.match(
      form,
      /<form method="post" action="\/billing\/sign-in">[\s\S]*?<button type="submit">Show my account<\/button>/,
      'the first button, the one Enter presses, only shows the account',
    );
    const calls = JSON.stringify(await providerCalls(t));
    const account = await landing(
      t,
      await post('/billing/sign-in', { token: await t.token('looker') }),
    );
    assert.equal(account.statusCode, 200);
    assert.match(account.body, /Signed in as <b>looker<\/b>/);
    assert.match(account.body, /<dt>Tier<\/dt><dd><span class="tier free" id="tier">free<\/span>/);
    assert.match(account.body, /You have no subscription yet\.[\s\S]*A checkout sells pro\./);
    assert.match(account.body, /<dd id="features">core<\/dd>/);
    assert.match(account.body, /<dd id="limits">projects 3, seats 1<\/dd>/);
    assert.match(account.body, /Start a checkout/);
    assert.equal(
      JSON.stringify(await providerCalls(t)),
      calls,
      'looking costs the provider nothing',
    );
  });

  test('where the browser flow ends, a way on: the cancel page and "nothing to manage" offer a checkout', async () => {
    assert.match(
      (await t.app.inject({ method: 'GET', url: '/billing/cancel' })).body,
      /<form method="post" action="\/billing\/checkout"><button type="submit">Start a checkout/,
    );
    const nothing = await landing(
      t,
      await post('/billing/portal', { token: await t.token('loop-newcomer') }),
    );
    assert.match(nothing.body, /nothing to manage yet[\s\S]*action="\/billing\/checkout"/);
  });

  test('a refused token is explained in words and forgotten', async () => {
    // Another DATA_DIR's development identity provider: its own key, its own port in the issuer.
    const elsewhere = await signToken(await generateSigningKey(), {
      sub: 'loop-elsewhere',
      email: 'loop-elsewhere@example.com',
      issuer: 'http://127.0.0.1:8000/dev/idp',
      audience: t.config.identity.audience,
    });
    const posted = await post('/billing/checkout', { token: elsewhere });
    assert.match(setCookies(posted).join('\n'), /billing_dev_token=; .*Max-Age=0/);
    const refused = await landing(t, posted);
    assert.match(
      refused.body,
      /Invalid token: wrong issuer: token says &quot;http:\/\/127\.0\.0\.1:8000\/dev\/idp&quot;, expected &quot;http:\/\/127\.0\.0\.1:0\/dev\/idp&quot;\./,
    );
    const expired = await t.app.inject({
      method: 'GET',
      url: '/billing',
      headers: {
        cookie: `billing_dev_token=${await t.token('loop-late', undefined, { ttlSeconds: -120 })}`,
      },
    });
    assert.equal(expired.statusCode, 401);
    assert.match(expired.body, /Invalid token: token expired\./);
    assert.match(cookieOf(expired), /Max-Age=0/);
  });
});

describe(`development pages refuse what a page elsewhere could make a browser send (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ BILLING_CHECKOUT_RATE_LIMIT: '2' });
  });
  after(() => t.close());

  test('a Host that is not a name of this machine (DNS rebinding) gets 421 on every page', async () => {
    for (const url of ['/', '/billing', '/billing/cancel', '/billing/dashboard']) {
      assert.equal(
        (await t.app.inject({ method: 'GET', url, headers: { host: 'attacker.example:8000' } }))
          .statusCode,
        421,
        url,
      );
      assert.notEqual(
        (await t.app.inject({ method: 'GET', url, headers: { host: 'localhost:8000' } }))
          .statusCode,
        421,
        url,
      );
    }
    const posted = await t.app.inject({
      method: 'POST',
      url: '/billing/checkout',
      headers: { ...FORM, host: 'attacker.example' },
      payload: 'token=x',
    });
    assert.equal(posted.statusCode, 421);
  });

  test('a form post with Origin: null and no Sec-Fetch-Site (a sandboxed frame in an older browser) is refused', async () => {
    const token = await t.token('null-origin');
    const refused = await t.app.inject({
      method: 'POST',
      url: '/billing/checkout',
      headers: { ...FORM, origin: 'null' },
      payload: new URLSearchParams({ token }).toString(),
    });
    assert.equal(refused.statusCode, 403);
    const ours = await t.app.inject({
      method: 'POST',
      url: '/billing/checkout',
      headers: { ...FORM, origin: 'http://localhost:8000', host: 'localhost:8000' },
      payload: new URLSearchParams({ token }).toString(),
    });
    assert.equal(ours.statusCode, 303, "our own page's post carries our origin");
  });

  test("the forms have the API's per-user limit: past it, back to /billing with the wait in words, no provider session", async () => {
    const token = await t.token('form-limit');
    const form = () =>
      t.app.inject({
        method: 'POST',
        url: '/billing/portal',
        headers: FORM,
        payload: new URLSearchParams({ token }).toString(),
      });
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/billing/checkout',
          headers: bearer(token),
          payload: {},
        })
      ).statusCode,
      200,
    );
    const calls = async () =>
      (await (
        await fetch(`${t.composition.simulatorUrl}/_sim/calls`, {
          headers: { authorization: `Bearer ${t.config.payments.apiKey}` },
        })
      ).json()) as { total?: number; calls?: unknown[] };
    assert.equal((await form()).statusCode, 303);
    assert.equal((await form()).statusCode, 303);
    const before = JSON.stringify(await calls());
    const third = await form();
    assert.match(
      (await landing(t, third)).body,
      /<p class="error">Too many tries this minute: try again in \d+ seconds\.<\/p>/,
    );
    assert.equal(JSON.stringify(await calls()), before, 'no provider call for the refused post');
  });
});

describe(`no development pages with a real provider (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      PAYMENTS_API_KEY: 'sk_test_x',
      PAYMENTS_API_BASE: 'http://127.0.0.1:9',
      PAYMENTS_WEBHOOK_SECRET: 'whsec_x',
      BILLING_PRICES: 'pro=price_1',
    });
  });
  after(() => t.close());

  test('/, /billing and /billing/portal are not there', async () => {
    assert.equal((await t.app.inject({ method: 'GET', url: '/' })).statusCode, 404);
    assert.equal((await t.app.inject({ method: 'GET', url: '/billing' })).statusCode, 404);
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: '/billing/portal',
          headers: FORM,
          payload: 'token=x',
        })
      ).statusCode,
      404,
    );
  });
});
