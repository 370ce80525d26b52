// Access tokens only: a token the issuer signed for something else, and says so in its JOSE type
// (`typ`: a logout token, an introspection answer...), is refused with 401 "Invalid token" and the
// type as the logged reason. An access token's types (`at+jwt`, `JWT`, in any case, with or
// without `application/`) and no type at all are taken, unless the claims say another kind: an ID
// token's `nonce`, a logout token's `events`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { createJwtVerifier } from '../../src/adapters/identity/jwt-verifier.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { devIssuerUrl, localKeys } from '../../src/dev/identity-provider.ts';
import { loadOrCreateSigningKey, type SigningKey } from '../../src/dev/signing-key.ts';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel, onceInTheSuite } from '../helpers/database.ts';

describe(`only access tokens are taken (${databaseLabel})`, onceInTheSuite, () => {
  let t: TestApp;
  let key: SigningKey;
  let issuer: string;
  before(async () => {
    t = await buildTestApp();
    key = await loadOrCreateSigningKey(t.config.dataDir);
    issuer = devIssuerUrl(t.config.host, t.config.port);
  });
  after(() => t.close());

  /** A token of the development issuer, for our audience, with this `typ` (or none). */
  const typed = (typ: string | undefined, sub = 'typed', claims: Record<string, unknown> = {}) =>
    new SignJWT({ email: `${sub}@example.com`, ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, ...(typ === undefined ? {} : { typ }) })
      .setSubject(sub)
      .setIssuer(issuer)
      .setAudience(t.config.identity.audience)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(key.privateKey);

  const me = async (token: string) =>
    t.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(token) });

  for (const typ of [undefined, 'JWT', 'jwt', 'at+jwt', 'AT+JWT', 'application/at+jwt'])
    test(`typ ${JSON.stringify(typ) ?? 'absent'} is taken`, async () => {
      const response = await me(await typed(typ));
      assert.equal(response.statusCode, 200, response.body);
    });

  for (const typ of ['logout+jwt', 'token-introspection+jwt', 'secevent+jwt', 'JWS', ''])
    test(`typ ${JSON.stringify(typ)} is "Invalid token", the type its logged reason`, async () => {
      const token = await typed(typ, `typed-${typ}`);
      const response = await me(token);
      assert.equal(response.statusCode, 401);
      assert.deepEqual(response.json(), { detail: 'Invalid token' });
      await assertRefusedFor(
        token,
        `not an access token: its type (typ) is ${JSON.stringify(typ)}`,
      );
    });

  const otherKinds = [
    [{ nonce: 'n-0S6_WzA2Mj' }, 'an ID token (it carries a nonce)'],
    [
      { events: { 'http://schemas.openid.net/event/backchannel-logout': {} } },
      'a logout token (it carries events)',
    ],
  ] as const;
  for (const typ of [undefined, 'JWT'])
    for (const [claims, kind] of otherKinds)
      test(`${kind}, typ ${JSON.stringify(typ) ?? 'absent'}: "Invalid token", no user stored`, async () => {
        const sub = `other-kind-${Object.keys(claims)[0]}-${typ}`;
        const token = await typed(typ, sub, claims);
        const response = await me(token);
        assert.equal(response.statusCode, 401);
        assert.deepEqual(response.json(), { detail: 'Invalid token' });
        const users = await t.composition.db.query('SELECT 1 FROM users WHERE idp_id = $1', [sub]);
        assert.equal(users.length, 0);
        await assertRefusedFor(token, `not an access token: ${kind}`);
      });

  async function assertRefusedFor(token: string, reason: string): Promise<void> {
    const verifier = createJwtVerifier({
      issuer,
      audience: t.config.identity.audience,
      keys: localKeys(key),
      emailClaim: 'email',
    });
    await assert.rejects(verifier.verify(token), (error: unknown) => {
      assert.ok(error instanceof DomainError);
      assert.deepEqual(error.details, { reason });
      return true;
    });
  }
});
