// Promise: when the payment provider fails during checkout (answers 500, loses its answer after
// acting, or hangs), the client gets 502 {"detail":"Payment provider unavailable"} within the
// configured bound (the SDK's per-attempt timeout, one retry), nothing is stored that the provider
// does not also hold (no session row, no customer id the provider never created), and the client's
// retry reuses the very customer and session the provider made during the failed attempt, because
// every creating call is repeated with the same idempotency key.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { STRIPE_TIMEOUT_MS } from '../../src/adapters/payments/stripe-client.ts';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import type { Fault } from '../helpers/faulty-front.ts';
import { startFaultyProvider, type FaultyProvider } from '../helpers/faulty-provider.ts';

/** One attempt, one retry, the SDK's backoff between them, and the test machine's slack. */
const HANG_BOUND_MS = 2 * STRIPE_TIMEOUT_MS + 3_000;
/** Failures that answer at once: the retry backoff only. */
const FAST_BOUND_MS = 5_000;

const CUSTOMERS = /^\/v1\/customers$/;
const SESSIONS = /^\/v1\/checkout\/sessions$/;

describe(`checkout while the payment provider misbehaves (${databaseLabel})`, () => {
  let t: TestApp;
  let provider: FaultyProvider;
  before(async () => {
    provider = await startFaultyProvider();
    t = await buildTestApp(provider.env);
  });
  after(async () => {
    await t?.close();
    await provider?.close();
  });

  async function checkout(sub: string) {
    const started = performance.now();
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/billing/checkout',
      headers: bearer(await t.token(sub)),
      payload: {},
    });
    return { response, ms: performance.now() - started };
  }

  /** What the service holds for the subject: its customer id and its stored sessions. */
  async function stored(sub: string) {
    const [user] = await t.composition.db.query<{
      id: string;
      payments_customer_id: string | null;
    }>('SELECT id, payments_customer_id FROM users WHERE idp_id = $1', [sub]);
    const sessions = await t.composition.db.query<{ id: string }>(
      'SELECT s.id FROM checkout_sessions s JOIN users u ON u.id = s.user_id WHERE u.idp_id = $1',
      [sub],
    );
    return { user, sessions: sessions.map((s) => s.id) };
  }

  /** Ids of the objects the provider created at `path` for requests sent since `from`, answered or not. */
  const createdVia = (path: RegExp, from: number) =>
    new Set(
      provider.front.requests
        .slice(from)
        .filter((r) => r.method === 'POST' && path.test(r.path) && r.objectId !== null)
        .map((r) => r.objectId),
    );
  const keysAt = (path: RegExp, from: number, to = provider.front.requests.length) =>
    new Set(
      provider.front.requests
        .slice(from, to)
        .filter((r) => r.method === 'POST' && path.test(r.path))
        .map((r) => r.idempotencyKey),
    );

  async function failThenRetry(sub: string, path: RegExp, fault: Fault, boundMs: number) {
    const from = provider.front.requests.length;
    provider.front.inject('POST', path, fault);
    const failed = await checkout(sub);
    provider.front.clear();
    assert.equal(failed.response.statusCode, 502, failed.response.body);
    assert.deepEqual(failed.response.json(), { detail: 'Payment provider unavailable' });
    assert.ok(failed.ms < boundMs, `answered in ${failed.ms.toFixed(0)} ms, bound ${boundMs} ms`);
    const afterFailure = await stored(sub);
    assert.deepEqual(
      afterFailure.sessions,
      [],
      'no session row for a session the client never got',
    );
    const customerAfterFailure = afterFailure.user?.payments_customer_id ?? null;
    if (customerAfterFailure !== null)
      assert.ok(
        createdVia(CUSTOMERS, from).has(customerAfterFailure),
        'a stored customer id is one the provider created',
      );

    const retryFrom = provider.front.requests.length;
    const retried = await checkout(sub);
    assert.equal(retried.response.statusCode, 200, retried.response.body);
    const customers = createdVia(CUSTOMERS, from);
    const sessions = createdVia(SESSIONS, from);
    assert.equal(
      customers.size,
      1,
      `one customer at the provider, got ${[...customers].join(', ')}`,
    );
    assert.equal(sessions.size, 1, `one session at the provider, got ${[...sessions].join(', ')}`);
    const [sessionId] = sessions;
    assert.ok(
      retried.response.json().url.endsWith(`/${sessionId}`),
      'the retry returns the session made during the failed attempt',
    );
    const afterRetry = await stored(sub);
    assert.deepEqual(afterRetry.sessions, [sessionId]);
    assert.equal(afterRetry.user!.payments_customer_id, [...customers][0]);
    // The retry repeats the keys of whatever the failed attempt reached, rather than minting new ones.
    for (const keyed of [CUSTOMERS, SESSIONS]) {
      const failedKeys = keysAt(keyed, from, retryFrom);
      if (failedKeys.size === 0) continue;
      for (const key of keysAt(keyed, retryFrom))
        assert.ok(failedKeys.has(key), `retry key ${key} is one the failed attempt used`);
    }
    return failed.ms;
  }

  test('the provider answers 500 without acting: 502 quickly, nothing stored, the retry makes one customer and one session', async () => {
    const from = provider.front.requests.length;
    const ms = await failThenRetry('p500-refused', CUSTOMERS, { kind: 'fail' }, FAST_BOUND_MS);
    const attempts = provider.front.requests.slice(from).filter((r) => CUSTOMERS.test(r.path));
    assert.equal(
      new Set(attempts.map((r) => r.idempotencyKey)).size,
      1,
      'every attempt at the customer carried one key',
    );
    console.log(`# ${databaseLabel}: provider 500 -> 502 in ${ms.toFixed(0)} ms`);
  });

  test('the provider creates the customer but its answer is lost (500): the retry gets that same customer', async () => {
    const ms = await failThenRetry(
      'p500-lost-customer',
      CUSTOMERS,
      { kind: 'fail-after' },
      FAST_BOUND_MS,
    );
    console.log(`# ${databaseLabel}: lost customer answer -> 502 in ${ms.toFixed(0)} ms`);
  });

  test('the provider creates the session but its answer is lost (500): the retry gets that same session, for the same customer', async () => {
    const ms = await failThenRetry(
      'p500-lost-session',
      SESSIONS,
      { kind: 'fail-after' },
      FAST_BOUND_MS,
    );
    console.log(`# ${databaseLabel}: lost session answer -> 502 in ${ms.toFixed(0)} ms`);
  });

  test(`the provider hangs after creating the session: 502 within ${HANG_BOUND_MS} ms, and the retry gets that same session`, async () => {
    const ms = await failThenRetry(
      'p-hang-session',
      SESSIONS,
      { kind: 'hang-after' },
      HANG_BOUND_MS,
    );
    assert.ok(ms >= STRIPE_TIMEOUT_MS, 'the service did wait for the provider before giving up');
    console.log(
      `# ${databaseLabel}: hanging provider -> 502 in ${ms.toFixed(0)} ms (bound ${HANG_BOUND_MS} ms)`,
    );
  });
});
