// A certified OpenID Provider (panva's oidc-provider) issuing RFC 9068 access tokens with an
// organisation claim and a role claim, through the same verifier as every token: Clerk's session
// token v2 shape read with JSON Pointers (/o/id, /o/rol, its v1 `org:` prefix on the role), and
// Keycloak's organization claim (an object of one alias with its id; several refused).
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { after, before, describe, test } from 'node:test';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel, onceInTheSuite } from '../helpers/database.ts';
import { startOidcProvider, type RealIssuer } from '../helpers/oidc-provider-issuer.ts';

const OUR_API = 'https://billing.example.test/api';

async function issuing(
  claims: Record<string, unknown>,
  env: Record<string, string>,
): Promise<{ issuer: RealIssuer; t: TestApp }> {
  const issuer = await startOidcProvider(
    [OUR_API],
    (clientId) => `${clientId}@clients.example.test`,
    () => claims,
  );
  const t = await buildTestApp({ IDP_ISSUER: issuer.url, IDP_AUDIENCE: OUR_API, ...env });
  return { issuer, t };
}

const get = async (t: TestApp, issuer: RealIssuer, url: string) =>
  t.app.inject({ method: 'GET', url, headers: bearer(await issuer.accessToken(OUR_API)) });

describe(`oidc-provider tokens naming an organisation (${databaseLabel})`, onceInTheSuite, () => {
  let clerk: { issuer: RealIssuer; t: TestApp };
  let keycloak: { issuer: RealIssuer; t: TestApp };
  let several: { issuer: RealIssuer; t: TestApp };
  before(async () => {
    clerk = await issuing(
      { o: { id: 'org_2abc', rol: 'org:admin', slg: 'acme' } },
      { IDP_ORG_CLAIM: '/o/id', IDP_ORG_ROLE_CLAIM: '/o/rol' },
    );
    keycloak = await issuing(
      { organization: { acme: { id: '5b5e7c0a-kc' } }, org_roles: ['member'] },
      { IDP_ORG_CLAIM: 'organization', IDP_ORG_ROLE_CLAIM: 'org_roles' },
    );
    several = await issuing(
      { organization: ['acme', 'globex'] },
      { IDP_ORG_CLAIM: 'organization' },
    );
  });
  after(async () => {
    for (const { issuer, t } of [clerk, keycloak, several].filter(Boolean)) {
      await t.close();
      await issuer.close();
    }
  });

  test("Clerk's v2 shape by JSON Pointer: the organisation, and a manager by its org:admin role", async () => {
    const token = await clerk.issuer.accessToken(OUR_API);
    assert.deepEqual(decodeJwt(token).o, { id: 'org_2abc', rol: 'org:admin', slg: 'acme' });
    const response = await get(clerk.t, clerk.issuer, '/api/v1/orgs/current/billing');
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.deepEqual(
      [body.org.idp_org_id, body.role, body.can_manage],
      ['org_2abc', 'org:admin', true],
    );
    const checkout = await clerk.t.app.inject({
      method: 'POST',
      url: '/api/v1/orgs/current/billing/checkout',
      headers: bearer(token),
      payload: {},
    });
    assert.equal(checkout.statusCode, 200, checkout.body);
    const [row] = await clerk.t.composition.db.query<{ issuer: string }>(
      "SELECT issuer FROM organizations WHERE idp_org_id = 'org_2abc'",
    );
    assert.equal(row!.issuer, clerk.issuer.url, 'keyed by the issuer and the claim');
  });

  test("Keycloak's organization object: its id, a member's role list, no managing", async () => {
    const response = await get(keycloak.t, keycloak.issuer, '/api/v1/orgs/current/billing');
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.deepEqual(
      [body.org.idp_org_id, body.role, body.can_manage],
      ['5b5e7c0a-kc', ['member'], false],
    );
  });

  test('a token naming several organisations: 403 for the organisation, its own tier elsewhere', async () => {
    const response = await get(several.t, several.issuer, '/api/v1/orgs/current/billing');
    assert.equal(response.statusCode, 403);
    assert.match(response.json().detail, /sign in with one organisation/);
    const me = await get(several.t, several.issuer, '/api/v1/users/me');
    assert.equal(me.statusCode, 200);
    assert.equal(me.json().tier, 'free');
  });
});
