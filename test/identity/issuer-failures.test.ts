// A failing identity provider is asked at most once per back-off, however many requests (forged
// tokens included) arrive: a failed discovery is remembered, keys never fetched are not fetched on
// every request, userinfo answers without an e-mail are cached. A key the issuer signs with the
// moment it publishes it is accepted after seconds, not 30 s. A real local issuer counts its hits;
// only Date is moved where a cooldown must pass.
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { generateSigningKey } from '../../src/dev/signing-key.ts';
import { bearer, buildTestApp } from '../helpers/app.ts';
import { databaseLabel, onceInTheSuite } from '../helpers/database.ts';
import { startOidcIssuer, type OidcTestIssuer } from '../../support/oidc-issuer.ts';

const REQUESTS = 20;
const BACKOFF_PASSED_MS = 31_000;

async function setup(
  context: TestContext,
  env: (issuer: OidcTestIssuer) => Record<string, string> = () => ({}),
) {
  const issuer = await startOidcIssuer();
  const t = await buildTestApp({
    IDP_ISSUER: issuer.url,
    IDP_AUDIENCE: issuer.audience,
    ...env(issuer),
  });
  context.after(async () => {
    await t.close();
    await issuer.close();
  });
  const me = (token: string) =>
    t.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(token) });
  /** REQUESTS requests, one after the other, each with a token signed by a key the issuer never published. */
  const forgedBurst = async () => {
    for (let i = 0; i < REQUESTS; i++)
      assert.equal(
        (await me(await issuer.token(`mallory${i}`, { key: await generateSigningKey() })))
          .statusCode,
        401,
      );
  };
  context.mock.timers.enable({ apis: ['Date'], now: Date.now() });
  const advance = (ms: number) => context.mock.timers.tick(ms);
  return { issuer, me, forgedBurst, advance };
}

describe(`identity provider failures are cooled down (${databaseLabel})`, onceInTheSuite, () => {
  test('discovery failing: forged tokens make one discovery fetch per back-off', async (context) => {
    const { issuer, forgedBurst, advance } = await setup(context);
    issuer.setDown('discovery', true);
    await forgedBurst();
    assert.equal(issuer.fetches('discovery'), 1);
    advance(BACKOFF_PASSED_MS);
    await forgedBurst();
    assert.equal(issuer.fetches('discovery'), 2);
    assert.equal(issuer.fetches('jwks'), 0);
  });

  test('JWKS failing before any key was fetched: one fetch per back-off, and keys fetched once it is back', async (context) => {
    const { issuer, me, forgedBurst, advance } = await setup(context);
    issuer.setDown('jwks', true);
    await forgedBurst();
    assert.equal((await me(await issuer.token('alice'))).statusCode, 401, 'no keys yet');
    assert.equal(issuer.fetches('jwks'), 1);
    assert.equal(issuer.fetches('discovery'), 1, 'a successful discovery is kept');
    issuer.setDown('jwks', false);
    advance(BACKOFF_PASSED_MS);
    assert.equal((await me(await issuer.token('alice'))).statusCode, 200);
    assert.equal(issuer.fetches('jwks'), 2);
  });

  test('JWKS failing with IDP_JWKS_URL set: one fetch per back-off', async (context) => {
    const { issuer, forgedBurst } = await setup(context, (i) => ({ IDP_JWKS_URL: i.jwksUrl }));
    issuer.setDown('jwks', true);
    await forgedBurst();
    assert.equal(issuer.fetches('jwks'), 1);
  });

  test('a key used the moment it is published is accepted within seconds, not 30 s', async (context) => {
    const { issuer, me, advance } = await setup(context);
    assert.equal((await me(await issuer.token('alice'))).statusCode, 200);
    await issuer.rotate();
    advance(6_000);
    const response = await me(await issuer.token('alice'));
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(issuer.fetches('jwks'), 2);
  });

  for (const [name, breakUserinfo] of [
    [
      'answers without an e-mail',
      (issuer: OidcTestIssuer) => issuer.setUserinfoEmail('alice', null),
    ],
    ['fails', (issuer: OidcTestIssuer) => issuer.setDown('userinfo', true)],
  ] as const) {
    test(`userinfo that ${name} is asked once for ${REQUESTS} requests with one token`, async (context) => {
      const { issuer, me } = await setup(context);
      breakUserinfo(issuer);
      const token = await issuer.token('alice', { email: null });
      for (let i = 0; i < REQUESTS; i++) assert.equal((await me(token)).statusCode, 401);
      assert.equal(issuer.fetches('userinfo'), 1);
    });
  }
});
