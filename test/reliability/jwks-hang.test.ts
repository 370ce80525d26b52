// Promise: when the identity provider's JWKS endpoint accepts connections but never answers,
// tokens signed with a cached key keep working without waiting on it, and a token with an unknown
// key gets the contract's 401 within the key-fetch bound, not a 500 and not a hang; the next
// unknown key is refused at once instead of waiting again. (A JWKS endpoint that answers 503 is in
// test/identity/oidc-issuer.test.ts.) Only Date is moved, past jose's 30 s refetch cooldown;
// sockets and timeouts keep real time.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateSigningKey } from '../../src/dev/signing-key.ts';
import { bearer, buildTestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { startOidcIssuer } from '../../support/oidc-issuer.ts';
import { startFaultyFront } from '../helpers/faulty-front.ts';

/** jose's fetch timeout for the key set, as configured in src/adapters/identity/oidc-issuer.ts, plus slack. */
const KEY_FETCH_BOUND_MS = 5_000 + 2_000;
const COOLDOWN_PASSED_MS = 31_000;

describe(`identity provider JWKS that hangs (${databaseLabel})`, () => {
  test('cached keys keep working at once, an unknown key is a 401 within the fetch bound, the next one at once', async (context) => {
    const issuer = await startOidcIssuer();
    const front = await startFaultyFront(issuer.url);
    const t = await buildTestApp({
      IDP_ISSUER: issuer.url,
      IDP_AUDIENCE: issuer.audience,
      IDP_JWKS_URL: `${front.url}/.well-known/jwks.json`,
    });
    context.after(async () => {
      await t.close();
      await front.close();
      await issuer.close();
    });
    const me = async (token: string) => {
      const started = performance.now();
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/v1/users/me',
        headers: bearer(token),
      });
      return { response, ms: performance.now() - started };
    };
    const unknownKey = async (sub: string) =>
      issuer.token(sub, { key: await generateSigningKey() });

    assert.equal(
      (await me(await issuer.token('alice'))).response.statusCode,
      200,
      'keys fetched while the endpoint answers',
    );
    front.inject('GET', /\/jwks\.json$/, { kind: 'hang' });
    context.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    context.mock.timers.tick(COOLDOWN_PASSED_MS);

    const refetching = me(await unknownKey('mallory'));
    await new Promise((resolve) => setTimeout(resolve, 100)); // the refetch is now hanging
    assert.equal(front.held, 1, 'the unknown key made the service ask the hanging endpoint');
    const cached = await Promise.all(
      Array.from({ length: 5 }, async (_, i) => me(await issuer.token(`cached-${i}`))),
    );
    for (const { response, ms } of cached) {
      assert.equal(response.statusCode, 200, response.body);
      assert.ok(ms < 1_000, `a cached key waited ${ms.toFixed(0)} ms on the hanging endpoint`);
    }

    const { response: refused, ms: refusedMs } = await refetching;
    assert.equal(refused.statusCode, 401, refused.body);
    assert.deepEqual(refused.json(), { detail: 'Invalid token' });
    assert.ok(refusedMs < KEY_FETCH_BOUND_MS, `the unknown key took ${refusedMs.toFixed(0)} ms`);

    const next = await me(await unknownKey('mallory-again'));
    assert.equal(next.response.statusCode, 401);
    assert.ok(next.ms < 1_000, `the next unknown key waited ${next.ms.toFixed(0)} ms`);
    console.log(
      `# ${databaseLabel}: hanging JWKS: cached keys answered in ≤ ${Math.max(...cached.map((c) => c.ms)).toFixed(0)} ms; unknown key 401 in ${refusedMs.toFixed(0)} ms, the next in ${next.ms.toFixed(0)} ms`,
    );
  });
});
