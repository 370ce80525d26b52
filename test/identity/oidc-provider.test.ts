// A certified OpenID Provider (panva's oidc-provider) as the issuer: RFC 9068 `at+jwt` access
// tokens minted by its token endpoint for our resource are accepted, with the e-mail the provider
// put into them; tokens it minted for another resource (audience) are refused.
import assert from 'node:assert/strict';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { after, before, describe, test } from 'node:test';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel, onceInTheSuite } from '../helpers/database.ts';
import { startOidcProvider, type RealIssuer } from '../helpers/oidc-provider-issuer.ts';

const OUR_API = 'https://billing.example.test/api';
const OTHER_API = 'https://reports.example.test/api';

describe(`oidc-provider as the issuer (${databaseLabel})`, onceInTheSuite, () => {
  let issuer: RealIssuer;
  let t: TestApp;
  before(async () => {
    issuer = await startOidcProvider(
      [OUR_API, OTHER_API],
      (clientId) => `${clientId}@clients.example.test`,
    );
    t = await buildTestApp({ IDP_ISSUER: issuer.url, IDP_AUDIENCE: OUR_API });
  });
  after(async () => {
    await t.close();
    await issuer.close();
  });

  const me = (token: string) =>
    t.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(token) });

  test('an at+jwt access token for our resource is accepted, with the e-mail it carries', async () => {
    const token = await issuer.accessToken(OUR_API);
    assert.equal(decodeProtectedHeader(token).typ, 'at+jwt');
    assert.equal(decodeJwt(token).aud, OUR_API);
    const response = await me(token);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().idp_id, 'billing-test-client');
    assert.equal(response.json().email, 'billing-test-client@clients.example.test');
  });

  test('a token the same provider minted for another resource is refused', async () => {
    const response = await me(await issuer.accessToken(OTHER_API));
    assert.equal(response.statusCode, 401);
    assert.deepEqual(response.json(), { detail: 'Invalid token' });
  });
});
