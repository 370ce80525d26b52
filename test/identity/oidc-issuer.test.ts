// A real OpenID issuer over HTTP: discovery, the JWKS cache (refetch on an unknown kid, at most once
// per cooldown), an issuer outage, a namespaced e-mail claim and the userinfo fallback. Each test
// gets a fresh issuer and app, so every count starts at zero. The clock is moved (Date only) where
// jose's 30 s cooldown or 10 min cache age must pass.
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { generateSigningKey } from '../../src/dev/signing-key.ts';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel, onceInTheSuite } from '../helpers/database.ts';
import {
  startOidcIssuer,
  type IssuerTokenOptions,
  type OidcTestIssuer,
} from '../../support/oidc-issuer.ts';
import { INVALID_TOKEN_CHALLENGE } from '../helpers/challenge.ts';

const COOLDOWN_PASSED_MS = 31_000;
const CACHE_EXPIRED_MS = 11 * 60_000;

interface Setup {
  issuer: OidcTestIssuer;
  t: TestApp;
  me(token: string): Promise<LightMyRequestResponse>;
  /** A token signed by a key the issuer never published. */
  unknownKidToken(sub: string): Promise<string>;
  userCount(): Promise<number>;
}

async function setup(
  context: TestContext,
  env: (issuer: OidcTestIssuer) => Record<string, string> = () => ({}),
): Promise<Setup> {
  const issuer = await startOidcIssuer();
  const t = await buildTestApp({
    IDP_ISSUER: issuer.url,
    IDP_AUDIENCE: 'api://billing',
    ...env(issuer),
  });
  context.after(async () => {
    await t.close();
    await issuer.close();
  });
  return {
    issuer,
    t,
    me: (token) => t.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(token) }),
    unknownKidToken: async (sub) => issuer.token(sub, { key: await generateSigningKey() }),
    userCount: async () =>
      (await t.composition.db.query<{ n: number }>('SELECT count(*)::int AS n FROM users'))[0]!.n,
  };
}

function assertInvalidToken(response: LightMyRequestResponse): void {
  assert.equal(response.statusCode, 401, response.body);
  assert.deepEqual(response.json(), { detail: 'Invalid token' });
  assert.match(String(response.headers['www-authenticate']), INVALID_TOKEN_CHALLENGE);
}

/** Freezes Date (only Date: sockets and timeouts keep real time) so the test can move it on. */
function controlClock(context: TestContext): (ms: number) => void {
  context.mock.timers.enable({ apis: ['Date'], now: Date.now() });
  return (ms) => context.mock.timers.tick(ms);
}

describe(`OIDC issuer over HTTP (${databaseLabel})`, onceInTheSuite, () => {
  test('a valid token is accepted, its keys found through discovery once and then cached', async (context) => {
    const { issuer, me } = await setup(context);
    const first = await me(await issuer.token('alice', { email: 'alice@example.com' }));
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json().email, 'alice@example.com');
    assert.equal((await me(await issuer.token('bob'))).statusCode, 200);
    assert.equal(issuer.fetches('discovery'), 1);
    assert.equal(issuer.fetches('jwks'), 1);
  });

  test('concurrent first requests share one discovery and one key fetch', async (context) => {
    const { issuer, me } = await setup(context);
    const tokens = await Promise.all(
      Array.from({ length: 10 }, (_, i) => issuer.token(`user${i}`)),
    );
    const responses = await Promise.all(tokens.map(me));
    assert.deepEqual([...new Set(responses.map((r) => r.statusCode))], [200]);
    assert.equal(issuer.fetches('discovery'), 1);
    assert.equal(issuer.fetches('jwks'), 1);
  });

  test('IDP_JWKS_URL is used instead of discovery', async (context) => {
    const { issuer, me } = await setup(context, (i) => ({ IDP_JWKS_URL: i.jwksUrl }));
    issuer.setDown('discovery', true);
    assert.equal((await me(await issuer.token('alice'))).statusCode, 200);
    assert.equal(issuer.fetches('discovery'), 0);
    assert.equal(issuer.fetches('jwks'), 1);
  });

  test('a token from a rotated-in key (unknown kid) makes the keys be fetched again, and is accepted', async (context) => {
    const { issuer, me } = await setup(context);
    const advance = controlClock(context);
    assert.equal((await me(await issuer.token('alice'))).statusCode, 200);
    await issuer.rotate({ dropOld: true });
    advance(COOLDOWN_PASSED_MS);
    assert.equal((await me(await issuer.token('alice'))).statusCode, 200);
    assert.equal(issuer.fetches('jwks'), 2);
  });

  test('unknown kids refetch the keys at most once per cooldown', async (context) => {
    const { issuer, me, unknownKidToken } = await setup(context);
    const advance = controlClock(context);
    const burst = async () => {
      for (const response of await Promise.all(
        Array.from({ length: 10 }, (_, i) => unknownKidToken(`mallory${i}`).then(me)),
      ))
        assertInvalidToken(response);
    };
    assert.equal((await me(await issuer.token('alice'))).statusCode, 200);
    await burst();
    assert.equal(issuer.fetches('jwks'), 1, 'no refetch within the cooldown of the first fetch');
    advance(COOLDOWN_PASSED_MS);
    await burst();
    await burst();
    assert.equal(issuer.fetches('jwks'), 2, 'one refetch once the cooldown has passed');
  });

  test('with the JWKS endpoint down, cached keys keep working and an unknown kid is a quick 401', async (context) => {
    const { issuer, me, unknownKidToken } = await setup(context);
    const advance = controlClock(context);
    assert.equal((await me(await issuer.token('alice'))).statusCode, 200);
    issuer.setDown('jwks', true);
    assert.equal((await me(await issuer.token('alice'))).statusCode, 200);
    advance(COOLDOWN_PASSED_MS);
    const started = performance.now();
    assertInvalidToken(await me(await unknownKidToken('mallory')));
    assert.ok(performance.now() - started < 3_000, 'answered without waiting on the issuer');
    assert.equal(issuer.fetches('jwks'), 2, 'the unknown kid did try the issuer');
  });

  test('an issuer outage longer than the cache age does not lock out tokens whose key was fetched before', async (context) => {
    const { issuer, me, unknownKidToken } = await setup(context);
    const advance = controlClock(context);
    assert.equal((await me(await issuer.token('alice'))).statusCode, 200);
    issuer.setDown('jwks', true);
    advance(CACHE_EXPIRED_MS);
    assert.equal((await me(await issuer.token('alice'))).statusCode, 200);
    assertInvalidToken(await me(await unknownKidToken('mallory')));
    issuer.setDown('jwks', false);
    const rotated = await issuer.rotate();
    advance(COOLDOWN_PASSED_MS);
    assert.equal(
      (await me(await issuer.token('bob', { key: rotated }))).statusCode,
      200,
      'fetching resumes when the issuer is back',
    );
  });

  test('IDP_EMAIL_CLAIM names the claim the e-mail is read from', async (context) => {
    const claim = 'https://example.com/email';
    const { issuer, me } = await setup(context, () => ({ IDP_EMAIL_CLAIM: claim }));
    const response = await me(
      await issuer.token('alice', { emailClaim: claim, email: 'alice@tenant.example' }),
    );
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().email, 'alice@tenant.example');
    assert.equal(issuer.fetches('userinfo'), 0);
  });

  test('a token without the e-mail claim gets its e-mail from userinfo, asked once per token', async (context) => {
    const { issuer, me } = await setup(context);
    issuer.setUserinfoEmail('alice', 'alice@userinfo.example');
    const token = await issuer.token('alice', { email: null });
    for (let i = 0; i < 3; i++) {
      const response = await me(token);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().email, 'alice@userinfo.example');
    }
    assert.equal(issuer.fetches('userinfo'), 1);
  });

  const withoutEmail: IssuerTokenOptions = { email: null };
  for (const [name, breakUserinfo] of [
    ['userinfo is down', (issuer: OidcTestIssuer) => issuer.setDown('userinfo', true)],
    ['userinfo has no e-mail', (issuer: OidcTestIssuer) => issuer.setUserinfoEmail('alice', null)],
  ] as const) {
    test(`a token without e-mail is rejected when ${name}, and no user is created`, async (context) => {
      const { issuer, me, userCount } = await setup(context);
      breakUserinfo(issuer);
      assertInvalidToken(await me(await issuer.token('alice', withoutEmail)));
      assert.equal(issuer.fetches('userinfo'), 1);
      assert.equal(await userCount(), 0);
    });
  }
});
