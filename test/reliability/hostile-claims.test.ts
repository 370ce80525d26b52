// Promise: a correctly signed token whose `sub` or `email` holds quotes, SQL, control characters,
// any Unicode or huge values is either accepted with both claims stored and returned verbatim (one
// user per distinct subject), or refused with the contract's 401 and nothing stored; never a 5xx.
// Tokens and headers too big for the server are refused in the contract's shape, and the service
// keeps serving. Requests go over real HTTP, so Node's own header limits apply.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { anyText, RUNS } from '../helpers/arbitraries.ts';
import { INVALID_TOKEN_CHALLENGE } from '../helpers/challenge.ts';

interface Answer {
  status: number;
  body: Record<string, unknown>;
  challenge: string | null;
}

describe(`hostile claims and oversized credentials (${databaseLabel})`, () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    t = await buildTestApp();
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(() => t.close());

  async function me(authorization: string): Promise<Answer> {
    const response = await fetch(`${base}/api/v1/users/me`, { headers: { authorization } });
    const text = await response.text();
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      body = { unparsed: text };
    }
    return { status: response.status, body, challenge: response.headers.get('www-authenticate') };
  }
  const userCount = async () =>
    (await t.composition.db.query<{ n: number }>('SELECT count(*)::int AS n FROM users'))[0]!.n;

  /** Accepted with both claims exactly as signed, in the answer and in the database, or a clean 401 storing nothing. */
  async function assertVerbatimOrRefused(
    sub: string,
    email: string,
    label = JSON.stringify({ sub: sub.slice(0, 40), email: email.slice(0, 40) }),
  ): Promise<Answer> {
    const before = await userCount();
    const answer = await me(`Bearer ${await t.token(sub, email)}`);
    assert.ok(
      [200, 401].includes(answer.status),
      `${label}: answered ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`,
    );
    if (answer.status === 401) {
      assert.deepEqual(answer.body, { detail: 'Invalid token' }, label);
      assert.match(String(answer.challenge), INVALID_TOKEN_CHALLENGE, label);
      assert.equal(await userCount(), before, `${label}: a refused token stores no user`);
      return answer;
    }
    assert.equal(answer.body.idp_id, sub, `${label}: sub returned verbatim`);
    assert.equal(answer.body.email, email, `${label}: email returned verbatim`);
    const [row] = await t.composition.db.query<{ idp_id: string; email: string }>(
      'SELECT idp_id, email FROM users WHERE id = $1',
      [answer.body.id as string],
    );
    assert.deepEqual(row, { idp_id: sub, email }, `${label}: stored verbatim`);
    return answer;
  }

  const HOSTILE: [string, string][] = [
    [`o'brien`, `o'brien@example.com`],
    [`"quoted"`, `"quoted"@example.com`],
    [`' OR '1'='1`, `x' OR '1'='1@example.com`],
    [`'; DROP TABLE users; --`, `robert'); DROP TABLE users;--@example.com`],
    ['$1 %s %d {{7*7}} ${7*7}', 'percent%40@example.com'],
    ['back\\slash', 'back\\slash@example.com'],
    ['tab\there', 'line\nbreak@example.com'],
    ['\u0001\u001f\u007f', 'bell\u0007@example.com'],
    ['\u202eright-to-left', '\u202eevil@example.com'],
    ['😀 emoji', 'ünïcödé@exämple.com'],
    ['x'.repeat(255), `${'x'.repeat(308)}@example.com`],
    ['x'.repeat(256), 'too-long-sub@example.com'],
    ['too-long-email', `${'x'.repeat(309)}@example.com`],
    ['x'.repeat(10_000), 'huge-sub@example.com'],
    ['huge-email', `${'x'.repeat(10_000)}@example.com`],
  ];

  test('quotes, SQL, control characters, bidi, emoji and huge values in sub and email: verbatim or a clean 401', async () => {
    for (const [sub, email] of HOSTILE) await assertVerbatimOrRefused(sub, email);
  });

  test('a NUL character in sub or email (PostgreSQL text cannot hold it) is refused cleanly, not a 5xx', async () => {
    await assertVerbatimOrRefused('nul\u0000sub', 'nul-sub@example.com');
    await assertVerbatimOrRefused('nul-email', 'nul\u0000@example.com');
  });

  test('subjects with lone surrogates are stored verbatim or refused, never merged into one user', async () => {
    const first = await assertVerbatimOrRefused('lone\ud800', 'lone-1@example.com');
    const second = await assertVerbatimOrRefused('lone\udc00', 'lone-2@example.com');
    if (first.status === 200 && second.status === 200)
      assert.notEqual(first.body.id, second.body.id, 'two subjects, one user');
  });

  test('any text as sub and email: verbatim or a clean 401, and distinct subjects never share a user', async () => {
    const owners = new Map<string, string>();
    await fc.assert(
      fc.asyncProperty(
        anyText.filter((s) => s !== ''),
        anyText,
        async (sub, email) => {
          const answer = await assertVerbatimOrRefused(sub, email);
          if (answer.status !== 200) return;
          const id = answer.body.id as string;
          const owner = owners.get(id);
          assert.ok(
            owner === undefined || owner === sub,
            `user ${id} answers for ${JSON.stringify(owner)} and ${JSON.stringify(sub)}`,
          );
          owners.set(id, sub);
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('a token too big for the server (over its header limit) is refused in the contract shape, and the service keeps serving', async () => {
    const before = await userCount();
    const oversized = await me(
      `Bearer ${await t.token('oversized', 'oversized@example.com', { extra: { padding: 'x'.repeat(32 * 1024) } })}`,
    );
    assert.equal(oversized.status, 431, JSON.stringify(oversized.body));
    assert.equal(await userCount(), before);
    const genuine = await me(`Bearer ${await t.token('after-oversized')}`);
    assert.equal(genuine.status, 200, 'the service still serves');
    assert.deepEqual(
      Object.keys(oversized.body),
      ['detail'],
      `the refusal uses {"detail": ...}: got ${JSON.stringify(oversized.body)}`,
    );
  });

  test('a forged token of ~12 KB (under the header limit) is a quick 401', async () => {
    const forged = `eyJhbGciOiJFUzI1NiJ9.${Buffer.from(JSON.stringify({ sub: 'x'.repeat(4000) })).toString('base64url')}.${'A'.repeat(6000)}`;
    const started = performance.now();
    const answer = await me(`Bearer ${forged}`);
    assert.equal(answer.status, 401);
    assert.deepEqual(answer.body, { detail: 'Invalid token' });
    assert.ok(performance.now() - started < 1_000);
  });
});
