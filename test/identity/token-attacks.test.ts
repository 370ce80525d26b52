// Every way a client's credentials can be wrong is a 401 with the contract's exact body and
// WWW-Authenticate header, never a 500, and never creates a user. Tokens are built for real with
// jose against the development identity provider's own key.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { base64url, exportSPKI, importJWK, SignJWT } from 'jose';
import { devIssuerUrl, signToken, type TokenClaims } from '../../src/dev/identity-provider.ts';
import {
  generateSigningKey,
  loadOrCreateSigningKey,
  type SigningKey,
} from '../../src/dev/signing-key.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel, onceInTheSuite } from '../helpers/database.ts';
import { INVALID_TOKEN_CHALLENGE } from '../helpers/challenge.ts';

const NOT_AUTHENTICATED = { body: { detail: 'Not authenticated' }, challenge: /^Bearer$/ };
const INVALID_TOKEN = {
  body: { detail: 'Invalid token' },
  challenge: INVALID_TOKEN_CHALLENGE,
};

const now = () => Math.floor(Date.now() / 1000);
const encode = (part: object) => base64url.encode(JSON.stringify(part));

/** Replaces the payload of a signed token, keeping its header and signature. */
function withPayload(token: string, payload: object): string {
  const [header, , signature] = token.split('.');
  return `${header}.${encode(payload)}.${signature}`;
}

describe(`token attacks on GET /users/me (${databaseLabel})`, onceInTheSuite, () => {
  let t: TestApp;
  let devKey: SigningKey;
  let issuer: string;
  before(async () => {
    t = await buildTestApp();
    devKey = await loadOrCreateSigningKey(t.config.dataDir);
    issuer = devIssuerUrl(t.config.host, t.config.port);
  });
  after(() => t.close());

  /** A well-formed token from the development issuer, with some claims (or the key) changed. */
  const sign = (claims: Partial<TokenClaims> = {}, key = devKey) =>
    signToken(key, {
      sub: 'mallory',
      email: 'mallory@example.com',
      issuer,
      audience: t.config.identity.audience,
      ...claims,
    });
  /** The claims of a well-formed token, for tokens assembled by hand. */
  const claims = () => ({
    sub: 'mallory',
    email: 'mallory@example.com',
    iss: issuer,
    aud: t.config.identity.audience,
    iat: now(),
    exp: now() + 3600,
  });
  const signRaw = (payload: object, alg: string, key: CryptoKey | Uint8Array) =>
    new SignJWT({ ...payload }).setProtectedHeader({ alg, kid: devKey.kid, typ: 'JWT' }).sign(key);

  const me = (authorization?: string) =>
    t.app.inject({
      method: 'GET',
      url: '/api/v1/users/me',
      headers: authorization === undefined ? {} : { authorization },
    });

  function assertRejected(response: LightMyRequestResponse, expected: typeof INVALID_TOKEN): void {
    assert.equal(response.statusCode, 401, response.body);
    assert.deepEqual(response.json(), expected.body);
    assert.match(String(response.headers['www-authenticate']), expected.challenge);
  }

  test('the control: a well-formed token is accepted', async () => {
    const response = await me(`Bearer ${await sign({ sub: 'control' })}`);
    assert.equal(response.statusCode, 200, response.body);
    await t.composition.db.query("DELETE FROM users WHERE idp_id = 'control'");
  });

  test('no Authorization header is "Not authenticated"', async () => {
    assertRejected(await me(), NOT_AUTHENTICATED);
  });

  test('another scheme (Basic) is "Not authenticated"', async () => {
    assertRejected(
      await me(`Basic ${Buffer.from('mallory:secret').toString('base64')}`),
      NOT_AUTHENTICATED,
    );
  });

  test("the challenge says why (RFC 6750's error_description): expired, another audience, a pasted prefix", async () => {
    const why = async (authorization: string) =>
      /error_description="([^"]*)"/.exec(
        String((await me(authorization)).headers['www-authenticate']),
      )?.[1];
    assert.equal(await why(`Bearer ${await sign({ ttlSeconds: -120 })}`), 'token expired');
    assert.match(
      (await why(`Bearer ${await sign({ audience: 'api://someone-else' })}`))!,
      /^wrong audience: token says 'api:\/\/someone-else'$/,
    );
    assert.match((await why(`Bearer Bearer ${await sign()}`))!, /the token alone/);
  });

  test('a path whose percent-encoding is broken: 400 in the contract shape, the path not echoed', async () => {
    for (const url of ['/api/v1/users/%E0%A4%A', '/api/v1/orgs/%zz/seats']) {
      const response = await t.app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json(), {
        detail: 'Malformed URL: its percent-encoding is not valid',
      });
    }
  });

  const attacks: [name: string, token: () => Promise<string>][] = [
    ['garbage', async () => 'not-a-jwt'],
    ['three garbage segments', async () => 'abc.def.ghi'],
    ['expired', () => sign({ ttlSeconds: -120 })],
    ['not yet valid (nbf beyond the 30 s tolerance)', () => sign({ extra: { nbf: now() + 120 } })],
    ['wrong issuer', () => sign({ issuer: 'https://evil.example' })],
    ['wrong audience', () => sign({ audience: 'api://someone-else' })],
    ['without e-mail (and no userinfo to ask)', () => sign({ email: undefined })],
    ['without subject', () => signRaw({ ...claims(), sub: undefined }, 'ES256', devKey.privateKey)],
    [
      'alg none (unsigned)',
      async () => `${encode({ alg: 'none', typ: 'JWT' })}.${encode(claims())}.`,
    ],
    [
      'HS256 signed with the public key (algorithm confusion)',
      async () => {
        const publicKey = (await importJWK(devKey.publicJwk, 'ES256', {
          extractable: true,
        })) as CryptoKey;
        return signRaw(claims(), 'HS256', new TextEncoder().encode(await exportSPKI(publicKey)));
      },
    ],
    ['unknown kid', async () => sign({}, await generateSigningKey())],
    [
      'another key claiming the same kid',
      async () => sign({}, { ...(await generateSigningKey()), kid: devKey.kid }),
    ],
    [
      'tampered payload (sub changed, signature kept)',
      async () => withPayload(await sign(), { ...claims(), sub: 'alice' }),
    ],
  ];
  for (const [name, token] of attacks) {
    test(`${name} is "Invalid token"`, async () => {
      assertRejected(await me(`Bearer ${await token()}`), INVALID_TOKEN);
    });
  }

  test('a Bearer header with a malformed credential is "Invalid token"', async () => {
    assertRejected(await me('Bearer two words'), INVALID_TOKEN);
  });

  test('no rejected token created a user', async () => {
    const rows = await t.composition.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM users',
    );
    assert.equal(rows[0]!.n, 0);
  });
});
