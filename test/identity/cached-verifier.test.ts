// The cache of verified tokens: a hit skips the inner verifier, but only for the exact token it
// accepted, never past the token's exp or the cache's max age, never for a failure, and within a
// bounded size. The last tests put it in front of the real jose verifier to show a forged token
// is still refused once the genuine one is cached.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { base64url } from 'jose';
import { createCachedVerifier } from '../../src/adapters/identity/cached-verifier.ts';
import { createJwtVerifier } from '../../src/adapters/identity/jwt-verifier.ts';
import { generateSigningKey } from '../../src/dev/signing-key.ts';
import { localKeys, signToken } from '../../src/dev/identity-provider.ts';
import { DomainError } from '../../src/domain/errors.ts';
import type { Principal } from '../../src/domain/model/callers.ts';
import type { TokenVerifier } from '../../src/domain/ports/token-verifier.ts';

const T0 = 1_900_000_000_000;
const encode = (part: object) => base64url.encode(JSON.stringify(part));

/** A JWT-shaped string; the fake inner verifier below decides whether it is "valid". */
function jwt(claims: { sub: string; exp?: number }, signature = 'sig'): string {
  return `${encode({ alg: 'ES256', typ: 'JWT' })}.${encode(claims)}.${signature}`;
}

/** An inner verifier that accepts tokens whose signature is "sig", and counts its calls. */
function fakeInner(delayMs = 0): TokenVerifier & { calls: number } {
  const fake = {
    calls: 0,
    async verify(token: string): Promise<Principal> {
      fake.calls++;
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const [, payload, signature] = token.split('.');
      if (signature !== 'sig') throw new DomainError('invalid_token', 'Invalid token');
      const { sub } = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as { sub: string };
      return { idpId: sub, email: `${sub}@example.com`, organization: null };
    },
    verifyService: () => Promise.reject(new Error('not used')),
  };
  return fake;
}

function clock(start = T0) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

const expIn = (seconds: number, from = T0) => Math.floor(from / 1000) + seconds;

describe('cached token verifier', () => {
  test('a repeated token is verified once and answers the same principal', async () => {
    const inner = fakeInner();
    const c = clock();
    const verifier = createCachedVerifier(inner, { now: c.now });
    const token = jwt({ sub: 'alice', exp: expIn(3600) });
    const first = await verifier.verify(token);
    const second = await verifier.verify(token);
    assert.deepEqual(second, { idpId: 'alice', email: 'alice@example.com', organization: null });
    assert.deepEqual(second, first);
    assert.equal(inner.calls, 1);
  });

  test('a failure is never cached: a bad token is checked, and refused, every time', async () => {
    const inner = fakeInner();
    const verifier = createCachedVerifier(inner, { now: clock().now });
    const bad = jwt({ sub: 'mallory', exp: expIn(3600) }, 'forged');
    for (let i = 0; i < 3; i++)
      await assert.rejects(verifier.verify(bad), { code: 'invalid_token' });
    assert.equal(inner.calls, 3);
  });

  test('a token differing in any byte (the signature, say) is a miss and goes to the inner verifier', async () => {
    const inner = fakeInner();
    const verifier = createCachedVerifier(inner, { now: clock().now });
    const good = jwt({ sub: 'alice', exp: expIn(3600) });
    await verifier.verify(good);
    await assert.rejects(verifier.verify(`${good}x`), { code: 'invalid_token' });
    await assert.rejects(verifier.verify(jwt({ sub: 'alice', exp: expIn(3600) }, 'sih')), {
      code: 'invalid_token',
    });
    assert.equal(inner.calls, 3);
  });

  test('an entry is dropped when the token expires', async () => {
    const inner = fakeInner();
    const c = clock();
    const verifier = createCachedVerifier(inner, { now: c.now, maxAgeMs: 3_600_000 });
    const token = jwt({ sub: 'alice', exp: expIn(10) });
    await verifier.verify(token);
    c.advance(9_000);
    await verifier.verify(token);
    assert.equal(inner.calls, 1, 'still cached one second before exp');
    c.advance(1_000);
    await verifier.verify(token);
    assert.equal(inner.calls, 2, 'at exp the inner verifier decides again');
  });

  test('an entry is dropped after maxAgeMs even when the token lives longer', async () => {
    const inner = fakeInner();
    const c = clock();
    const verifier = createCachedVerifier(inner, { now: c.now, maxAgeMs: 60_000 });
    const token = jwt({ sub: 'alice', exp: expIn(3600) });
    await verifier.verify(token);
    c.advance(59_999);
    await verifier.verify(token);
    assert.equal(inner.calls, 1);
    c.advance(1);
    await verifier.verify(token);
    assert.equal(inner.calls, 2);
  });

  test('a token accepted past its exp (inside the clock tolerance), or without exp, is not cached', async () => {
    const inner = fakeInner();
    const verifier = createCachedVerifier(inner, { now: clock().now });
    const late = jwt({ sub: 'alice', exp: expIn(-5) });
    const endless = jwt({ sub: 'bob' });
    for (let i = 0; i < 2; i++) {
      await verifier.verify(late);
      await verifier.verify(endless);
    }
    assert.equal(inner.calls, 4);
  });

  test('the size is bounded; the least recently used entry goes first', async () => {
    const inner = fakeInner();
    const verifier = createCachedVerifier(inner, { now: clock().now, maxEntries: 2 });
    const [a, b, c] = ['a', 'b', 'c'].map((sub) => jwt({ sub, exp: expIn(3600) })) as [
      string,
      string,
      string,
    ];
    await verifier.verify(a);
    await verifier.verify(b);
    await verifier.verify(a); // hit: a is now the most recently used
    await verifier.verify(c); // evicts b
    assert.equal(inner.calls, 3);
    await verifier.verify(a);
    assert.equal(inner.calls, 3, 'a stayed');
    await verifier.verify(b);
    assert.equal(inner.calls, 4, 'b was evicted');
  });

  test('concurrent first uses of one token share one verification, success or failure', async () => {
    const inner = fakeInner(20);
    const verifier = createCachedVerifier(inner, { now: clock().now });
    const good = jwt({ sub: 'alice', exp: expIn(3600) });
    const principals = await Promise.all(Array.from({ length: 10 }, () => verifier.verify(good)));
    assert.equal(new Set(principals.map((p) => p.idpId)).size, 1);
    assert.equal(inner.calls, 1);

    const bad = jwt({ sub: 'mallory', exp: expIn(3600) }, 'forged');
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () => verifier.verify(bad)),
    );
    assert.ok(outcomes.every((o) => o.status === 'rejected'));
    assert.equal(inner.calls, 2);
    await assert.rejects(verifier.verify(bad));
    assert.equal(inner.calls, 3, 'the shared failure was not kept');
  });

  test('a caller changing the principal it got does not change what the cache answers', async () => {
    const verifier = createCachedVerifier(fakeInner(), { now: clock().now });
    const token = jwt({ sub: 'alice', exp: expIn(3600) });
    const first = await verifier.verify(token);
    assert.throws(() => {
      (first as { email: string }).email = 'mallory@example.com';
    }, TypeError);
    assert.equal((await verifier.verify(token)).email, 'alice@example.com');
  });

  test('bad options are refused', () => {
    assert.throws(() => createCachedVerifier(fakeInner(), { maxEntries: 0 }), RangeError);
    assert.throws(() => createCachedVerifier(fakeInner(), { maxAgeMs: 0 }), RangeError);
  });

  describe('in front of the real jose verifier', () => {
    async function setup() {
      const key = await generateSigningKey();
      const options = {
        issuer: 'https://issuer.example',
        audience: 'api://billing',
        emailClaim: 'email',
      };
      const verifier = createCachedVerifier(
        createJwtVerifier({ ...options, keys: localKeys(key) }),
      );
      const sign = (sub: string, ttlSeconds = 3600) =>
        signToken(key, { sub, email: `${sub}@example.com`, ...options, ttlSeconds });
      return { key, verifier, sign };
    }

    test('with the genuine token cached, the same claims with a changed payload or signature are refused', async () => {
      const { verifier, sign } = await setup();
      const genuine = await sign('alice');
      assert.equal((await verifier.verify(genuine)).idpId, 'alice');
      const [header, payload, signature] = genuine.split('.') as [string, string, string];
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<
        string,
        unknown
      >;
      const tampered = `${header}.${encode({ ...claims, sub: 'mallory' })}.${signature}`;
      await assert.rejects(verifier.verify(tampered), { code: 'invalid_token' });
      const resigned = `${header}.${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
      await assert.rejects(verifier.verify(resigned), { code: 'invalid_token' });
      await assert.rejects(verifier.verify(`${header}.${payload}.`), { code: 'invalid_token' });
    });

    test('a token signed by another key is refused even for a subject whose token is cached', async () => {
      const { verifier, sign } = await setup();
      await verifier.verify(await sign('alice'));
      const stranger = await generateSigningKey();
      const foreign = await signToken(stranger, {
        sub: 'alice',
        email: 'alice@example.com',
        issuer: 'https://issuer.example',
        audience: 'api://billing',
      });
      await assert.rejects(verifier.verify(foreign), { code: 'invalid_token' });
    });

    test('an expired token is refused by the inner verifier, cached or not', async () => {
      const { verifier, sign } = await setup();
      await assert.rejects(verifier.verify(await sign('alice', -120)), { code: 'invalid_token' });
    });
  });
});
