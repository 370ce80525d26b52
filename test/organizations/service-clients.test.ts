// The application's backend is a client BILLING_SERVICE_CLIENTS lists, as a certified OpenID
// Provider (panva's oidc-provider) issues its client-credentials tokens (RFC 9068: `client_id`,
// no e-mail): its seat report is taken; the same token is refused while the variable is unset
// (the 403 names it) or lists another client.
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { after, before, describe, test } from 'node:test';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel, onceInTheSuite } from '../helpers/database.ts';
import { startOidcProvider, type RealIssuer } from '../helpers/oidc-provider-issuer.ts';

const OUR_API = 'https://billing.example.test/api';

describe(`service clients with a real identity provider (${databaseLabel})`, onceInTheSuite, () => {
  let issuer: RealIssuer;
  const apps: TestApp[] = [];
  const appWith = async (clients: string | null) => {
    const t = await buildTestApp({
      IDP_ISSUER: issuer.url,
      IDP_AUDIENCE: OUR_API,
      IDP_ORG_CLAIM: 'org_id',
      BILLING_SEATS: 'reported',
      BILLING_SERVICE_SCOPE: 'billing',
      ...(clients !== null && { BILLING_SERVICE_CLIENTS: clients }),
    });
    apps.push(t);
    return t;
  };
  const report = async (t: TestApp) =>
    t.app.inject({
      method: 'PUT',
      url: '/api/v1/orgs/acme/seats',
      headers: bearer(await issuer.accessToken(OUR_API)),
      payload: { count: 7, as_of: '2026-05-01T00:00:00Z' },
    });
  before(async () => {
    issuer = await startOidcProvider([OUR_API], () => undefined);
  });
  after(async () => {
    for (const t of apps) await t.close();
    await issuer.close();
  });

  test('the token names its client and carries no e-mail', async () => {
    const claims = decodeJwt(await issuer.accessToken(OUR_API));
    assert.deepEqual(
      [claims.client_id, claims.email, claims.scope],
      ['billing-test-client', undefined, 'billing'],
    );
  });

  test('a listed client reports seats', async () => {
    const response = await report(await appWith(' other-client , billing-test-client'));
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().reported, 7);
  });

  test('BILLING_SERVICE_CLIENTS unset: 403 naming it, nothing stored', async () => {
    const t = await appWith(null);
    const response = await report(t);
    assert.equal(response.statusCode, 403);
    assert.match(response.json().detail, /BILLING_SERVICE_CLIENTS lists none/);
    assert.deepEqual(await t.composition.db.query('SELECT 1 FROM organizations'), []);
  });

  test('another client listed: 403', async () => {
    const response = await report(await appWith('other-client'));
    assert.equal(response.statusCode, 403);
    assert.match(response.json().detail, /a client BILLING_SERVICE_CLIENTS lists/);
  });
});
