// /billing for a token that names an organisation: the organisation's billing as the API's
// OrganizationBilling says it, the member's tier and where it comes from, the team checkout and
// portal for a manager only (the role from the token), a member told who may; the team forms keep
// the forms' gates (cross-site refused, the token verified before anything counts, the per-user
// limit shared with the API, post-redirect-get), and a team checkout comes back to a page that waits
// for the organisation's tier.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateSigningKey } from '../../src/dev/signing-key.ts';
import { signToken } from '../../src/dev/identity-provider.ts';
import { buildTestApp, deliverWebhooks, type TestApp } from '../helpers/app.ts';
import { landing, postForm, setCookies } from '../helpers/billing-forms.ts';
import { until } from '../helpers/browser.ts';
import { databaseLabel } from '../helpers/database.ts';
import { memberToken } from '../helpers/organizations.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe(`/billing for a member of an organisation (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ BILLING_CHECKOUT_RATE_LIMIT: '3' });
    await deliverWebhooks(t);
  });
  after(() => t.close());

  /** /billing as the browser signed in with `token` sees it. */
  const billing = async (token: string) => {
    const page = await t.app.inject({
      method: 'GET',
      url: '/billing',
      headers: { cookie: `billing_dev_token=${token}` },
    });
    assert.equal(page.statusCode, 200, page.body);
    return page.body;
  };
  const sessionsOfOrganizations = async () =>
    (
      await t.composition.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM checkout_sessions WHERE organization_id IS NOT NULL',
      )
    )[0]!.n;
  const limitKeys = async () =>
    (await t.composition.db.query<{ key: string }>('SELECT key FROM rate_limit_counts')).map(
      (row) => row.key,
    );

  test('/ says how to mint an admin and a member token for the same organisation', async () => {
    const start = (await t.app.inject({ method: 'GET', url: '/' })).body;
    assert.match(
      start,
      /npm run token -- --sub ann --org acme --role admin[\s\S]*npm run token -- --sub bob --org acme --role member/,
    );
  });

  test('a member sees the organisation, its tier, seats and who may change it, and no manager buttons', async () => {
    const body = await billing(await memberToken(t, 'initech-mia', 'initech', 'member'));
    assert.match(body, /<h2>Your organisation<\/h2>/);
    assert.match(body, /<dd id="org">initech<\/dd>[\s\S]*<dd id="org-role">member<\/dd>/);
    assert.match(body, /<span class="tier free" id="org-tier">free<\/span>/);
    assert.match(body, /Your organisation has no subscription yet\./);
    assert.match(body, /<dd id="org-seats">1 active member<\/dd>/);
    assert.match(
      body,
      /<p id="org-managers">Only a member whose token gives one of the roles owner, admin can buy or change it: ask one of them\.<\/p>/,
    );
    assert.doesNotMatch(body, /\/billing\/org\/(checkout|portal)/);
    assert.doesNotMatch(body, /A team checkout sells/);
  });

  test('a token naming no organisation shows none; one naming several says to sign in with one', async () => {
    assert.doesNotMatch(await billing(await t.token('loner')), /Your organisation/);
    const several = await billing(await memberToken(t, 'multi', ['initech', 'globex'], 'admin'));
    assert.match(
      several,
      /<h2>Your organisation<\/h2><p class="error">Your token names several organisations: sign in with one organisation/,
    );
    assert.doesNotMatch(several, /\/billing\/org\/checkout/);
  });

  test("a manager sees the team checkout; the portal only once there is a customer, and before that the API's 409 in words", async () => {
    const admin = await memberToken(t, 'initech-ann', 'initech', ['viewer', 'Org:Admin']);
    const body = await billing(admin);
    assert.match(body, /<dd id="org-role">viewer, Org:Admin<\/dd>/);
    assert.match(body, /A team checkout sells team for its members\./);
    assert.match(
      body,
      /<form method="post" action="\/billing\/org\/checkout"><button type="submit">Start a team checkout<\/button>/,
    );
    assert.doesNotMatch(body, /\/billing\/org\/portal/);
    assert.doesNotMatch(body, /org-managers/);
    const portal = await landing(t, await postForm(t, '/billing/org/portal', { token: admin }));
    assert.match(portal.body, /<p class="error">There is nothing to manage yet/);
  });

  test("members' posts for the organisation are refused: by role, by signature, cross-site; nothing made, nothing counted for a forgery", async () => {
    const member = await memberToken(t, 'initech-mia', 'initech', 'member');
    for (const path of ['/billing/org/checkout', '/billing/org/portal']) {
      const refused = await landing(t, await postForm(t, path, { token: member }));
      assert.match(
        refused.body,
        /<p class="error">Managing your organisation&#39;s billing needs one of the roles owner, admin; your token gives member\.<\/p>/,
        path,
      );
    }
    const keys = await limitKeys();
    const forgeries = [
      `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ sub: 'initech-mia', org_id: 'initech', org_role: 'admin', exp: 4_102_444_800 })}.`,
      await signToken(await generateSigningKey(), {
        sub: 'initech-mia',
        issuer: `http://${t.config.host}:${t.config.port}/dev/idp`,
        audience: t.config.identity.audience,
        extra: { org_id: 'initech', org_role: 'admin' },
      }),
    ];
    for (const forged of forgeries)
      for (const path of ['/billing/org/checkout', '/billing/org/portal']) {
        const posted = await postForm(t, path, { token: forged });
        assert.match(setCookies(posted).join('\n'), /billing_dev_token=; .*Max-Age=0/);
        assert.match((await landing(t, posted)).body, /<p class="error">Invalid token: /, path);
      }
    assert.deepEqual(await limitKeys(), keys, 'a forged post counts nowhere');
    const admin = await memberToken(t, 'initech-ann', 'initech', 'admin');
    const crossSite = await postForm(
      t,
      '/billing/org/checkout',
      { token: admin },
      { 'sec-fetch-site': 'cross-site' },
    );
    assert.equal(crossSite.statusCode, 403);
    assert.equal(await sessionsOfOrganizations(), 0);
  });

  test("a manager's team checkout: the organisation's, for its members, back to a page that waits for its tier", async () => {
    const admin = await memberToken(t, 'initech-ann', 'initech', 'admin');
    const waiting = await t.app.inject({
      method: 'GET',
      url: '/billing/org/success',
      headers: { cookie: `billing_dev_token=${admin}` },
    });
    assert.match(waiting.body, /http-equiv="refresh"[\s\S]*Waiting for the payment provider/);
    const posted = await postForm(t, '/billing/org/checkout', { token: admin });
    assert.equal(posted.statusCode, 303, posted.body);
    const url = String(posted.headers.location);
    assert.match(url, new RegExp(`^${t.composition.simulatorUrl}/checkout/cs_`));
    const session = await simulatorClient(t).checkout.sessions.retrieve(url.split('/').pop()!);
    const [org] = await t.composition.db.query<{ id: string }>(
      "SELECT id FROM organizations WHERE idp_org_id = 'initech'",
    );
    assert.equal(session.client_reference_id, org!.id);
    assert.equal(session.success_url, `${t.config.appUrl}/billing/org/success`);
    assert.equal(session.cancel_url, `${t.config.appUrl}/billing`);
    const items = await simulatorClient(t).checkout.sessions.listLineItems(session.id);
    assert.deepEqual(
      items.data.map((item) => item.quantity),
      [2],
      'initech-mia and initech-ann (multi named several, so none)',
    );

    assert.equal((await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' })).status, 303);
    const paid = await until(
      async () =>
        (
          await t.app.inject({
            method: 'GET',
            url: '/billing/org/success',
            headers: { cookie: `billing_dev_token=${admin}` },
          })
        ).body,
      (body) => body.includes('Payment received'),
    );
    assert.match(
      paid,
      /initech is now on <span class="tier" id="org-tier">team<\/span>, for 2 seats/,
    );
    const body = await billing(admin);
    assert.match(body, /<span id="org-status">active<\/span>/);
    assert.match(body, /Your organisation&#39;s team subscription is active until/);
    assert.match(body, /billed for <span id="org-billed">2<\/span>/);
    assert.match(body, /action="\/billing\/org\/portal"/);
    assert.doesNotMatch(body, /action="\/billing\/org\/checkout"/);
  });

  test("a member's own tier comes from the organisation: said where it comes from, and no personal checkout it covers", async () => {
    const body = await billing(await memberToken(t, 'initech-mia', 'initech', 'member'));
    assert.match(
      body,
      /<dt>Tier<\/dt><dd><span class="tier" id="tier">team<\/span> <span class="muted" id="tier-source">through your organisation<\/span>/,
    );
    assert.match(
      body,
      /Your organisation gives you team, which covers what a personal checkout sells \(pro\)\./,
    );
    assert.doesNotMatch(body, /action="\/billing\/checkout"/);
    const alone = await billing(await t.token('initech-mia'));
    assert.match(alone, /<span class="tier free" id="tier">free<\/span><\/dd>/);
    assert.match(alone, /action="\/billing\/checkout"/);
  });

  test('not signed in, the team success page says so', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/billing/org/success' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<p class="error">Not authenticated: no token pasted/);
  });

  test("past the per-user limit, a team form redirects with the wait in words; the API's count is the same", async () => {
    const admin = await memberToken(t, 'globex-gus', 'globex', 'admin');
    for (let i = 0; i < 3; i++)
      assert.equal((await postForm(t, '/billing/org/checkout', { token: admin })).statusCode, 303);
    const over = await landing(t, await postForm(t, '/billing/org/checkout', { token: admin }));
    assert.match(
      over.body,
      /<p class="error">Too many tries this minute: try again in \d+ seconds\.<\/p>/,
    );
    const api = await t.app.inject({
      method: 'POST',
      url: '/api/v1/orgs/current/billing/checkout',
      headers: { authorization: `Bearer ${admin}` },
      payload: {},
    });
    assert.equal(api.statusCode, 429);
  });
});
