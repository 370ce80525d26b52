// The organisation operations refuse, in the contract's shapes, whoever the token does not make a
// member, or a manager: no organisation, several (Keycloak's organization:* scope), a role that is
// not a manager's; the bodies are checked as a user's checkout's. With a real issuer and no
// IDP_ORG_CLAIM, organisations are off: an org claim changes nothing anywhere, and the organisation
// operations say they are not enabled.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startOidcIssuer, type OidcTestIssuer } from '../../support/oidc-issuer.ts';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { asMember, orgPost } from '../helpers/organizations.ts';

describe(`the organisation operations refuse (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const get = (sub: string, org?: unknown, role?: unknown) =>
    asMember(t, sub, { org, role }, { method: 'GET', url: '/api/v1/orgs/current/billing' });
  const organizations = async () =>
    (
      await t.composition.db.query<{ n: number }>('SELECT count(*)::int AS n FROM organizations')
    )[0]!.n;

  test('no token: 401 in the contract shape', async () => {
    for (const [method, url] of [
      ['GET', '/api/v1/orgs/current/billing'],
      ['POST', '/api/v1/orgs/current/billing/checkout'],
      ['POST', '/api/v1/orgs/current/billing/portal'],
    ] as const) {
      const response = await t.app.inject({
        method,
        url,
        payload: method === 'POST' ? {} : undefined,
      });
      assert.equal(response.statusCode, 401, url);
      assert.deepEqual(response.json(), { detail: 'Not authenticated' });
    }
  });

  test('a token naming no organisation: 403 saying so, for every operation, and nothing made', async () => {
    const response = await get('solo');
    assert.equal(response.statusCode, 403);
    assert.match(response.json().detail, /names no organisation/);
    for (const path of ['checkout', 'portal'])
      assert.equal((await orgPost(t, 'solo', { role: 'admin' }, path)).statusCode, 403);
    assert.equal(await organizations(), 0);
  });

  test('a token naming several organisations: 403 telling the person to sign in with one', async () => {
    for (const several of [['acme', 'globex'], { acme: {}, globex: {} }]) {
      const response = await get('multi', several, 'admin');
      assert.equal(response.statusCode, 403);
      assert.equal(
        response.json().detail,
        'Your token names several organisations: sign in with one organisation to see or manage its billing',
      );
      const checkout = await orgPost(t, 'multi', { org: several, role: 'admin' }, 'checkout');
      assert.equal(checkout.statusCode, 403);
    }
    assert.equal(await organizations(), 0);
  });

  test('a member whose role is not a manager role: sees the billing, may not buy or manage it', async () => {
    for (const role of ['member', ['viewer', 'billing'], undefined, 'org:owner-ish', 42]) {
      assert.equal((await get('mia', 'initech', role)).statusCode, 200);
      for (const path of ['checkout', 'portal']) {
        const response = await orgPost(t, 'mia', { org: 'initech', role }, path);
        assert.equal(response.statusCode, 403, `${path} ${JSON.stringify(role)}`);
        assert.match(
          response.json().detail,
          /needs one of the roles owner, admin; your token gives/,
        );
      }
    }
    const rows = await t.composition.db.query('SELECT 1 FROM checkout_sessions');
    assert.deepEqual(rows, []);
  });

  test("a manager's bodies are checked as a user's: 422 in FastAPI's shape", async () => {
    const manager = { org: 'initech', role: 'owner' };
    const typed = await orgPost(t, 'olga', manager, 'checkout', { success_url: 5 });
    assert.equal(typed.statusCode, 422);
    assert.deepEqual(typed.json().detail[0].loc, ['body', 'success_url']);
    const elsewhere = await orgPost(t, 'olga', manager, 'checkout', {
      cancel_url: 'https://evil.example/back',
    });
    assert.equal(elsewhere.statusCode, 422);
    assert.equal(elsewhere.json().detail[0].type, 'url_not_allowed');
    const portal = await orgPost(t, 'olga', manager, 'portal', {
      return_url: 'javascript:alert(1)',
    });
    assert.equal(portal.statusCode, 422);
    assert.deepEqual(portal.json().detail[0].loc, ['body', 'return_url']);
  });
});

describe(`organisations off: a real issuer without IDP_ORG_CLAIM (${databaseLabel})`, () => {
  let issuer: OidcTestIssuer;
  let t: TestApp;
  before(async () => {
    issuer = await startOidcIssuer();
    t = await buildTestApp({ IDP_ISSUER: issuer.url, IDP_AUDIENCE: issuer.audience });
  });
  after(async () => {
    await t.close();
    await issuer.close();
  });

  const request = async (method: 'GET' | 'POST', url: string) =>
    t.app.inject({
      method,
      url,
      headers: bearer(await issuer.token('otto', { extra: { org_id: 'acme', org_role: 'admin' } })),
      payload: method === 'POST' ? {} : undefined,
    });

  test('an org claim changes nothing: the profile and the summary are as without one', async () => {
    const me = await request('GET', '/api/v1/users/me');
    assert.equal(me.statusCode, 200);
    assert.equal(me.json().tier, 'free');
    const summary = await request('GET', '/api/v1/billing/subscription');
    assert.deepEqual(Object.keys(summary.json()).includes('tier_source'), false);
    const rows = await t.composition.db.query('SELECT 1 FROM organizations');
    assert.deepEqual(rows, []);
  });

  test('the organisation operations: 403, not enabled', async () => {
    for (const [method, url] of [
      ['GET', '/api/v1/orgs/current/billing'],
      ['POST', '/api/v1/orgs/current/billing/checkout'],
      ['POST', '/api/v1/orgs/current/billing/portal'],
    ] as const) {
      const response = await request(method, url);
      assert.equal(response.statusCode, 403, url);
      assert.deepEqual(response.json(), {
        detail: 'Organisations are not enabled on this service',
      });
    }
  });
});
