// The webhook accepts only bodies signed with a configured secret over the exact bytes, within
// 300 s either way, of events dated at most 60 s after their signature. Every rejection is a 400
// with a detail, and leaves nothing stored. Each bound is tried on both sides of its edge, with
// the clock stopped mid-second so that no second passes between signing and checking.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test, type TestContext } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { eventOf, signedHeaders, subscriptionObject } from '../helpers/stripe-fixtures.ts';

const CURRENT = 'whsec_current_secret';
const PREVIOUS = 'whsec_previous_secret';

describe(`webhook signature (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ PAYMENTS_WEBHOOK_SECRET: `${CURRENT},${PREVIOUS}` });
  });
  after(() => t.close());

  const post = (payload: string, headers: Record<string, string>) =>
    t.app.inject({ method: 'POST', url: '/api/v1/webhooks/payments', payload, headers });
  const payload = () =>
    JSON.stringify(eventOf('customer.created', { id: 'cus_1', object: 'customer' }));
  const stored = async () =>
    (
      await t.composition.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_events')
    )[0]!.n;
  const now = () => Math.floor(Date.now() / 1000);

  async function assertRejected(body: string, headers: Record<string, string>) {
    const before = await stored();
    const response = await post(body, headers);
    assert.equal(response.statusCode, 400);
    assert.equal(typeof response.json().detail, 'string');
    assert.equal(await stored(), before);
  }
  async function assertAccepted(body: string, headers: Record<string, string>) {
    const before = await stored();
    const response = await post(body, headers);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(await stored(), before + 1);
  }
  /** Stops the test's clock in the middle of the current second; returns that second. */
  function stopClock(context: TestContext): number {
    const second = now();
    context.mock.timers.enable({ apis: ['Date'], now: second * 1000 + 500 });
    return second;
  }
  /** An event signed (and dated) `offset` seconds from the stopped clock's second. */
  const signedAtOffset = (now: number, offset: number) => {
    const body = JSON.stringify(
      eventOf('customer.created', { id: 'cus_1', object: 'customer' }, { created: now + offset }),
    );
    return [body, signedHeaders(body, CURRENT, now + offset)] as const;
  };
  /** An event dated `skew` seconds after its signature, signed at the stopped clock's second. */
  const datedAfterSignature = (signedAt: number, skew: number) => {
    const body = JSON.stringify(
      eventOf('customer.subscription.updated', subscriptionObject(), { created: signedAt + skew }),
    );
    return [body, signedHeaders(body, CURRENT, signedAt)] as const;
  };

  test('missing header', () => assertRejected(payload(), { 'content-type': 'application/json' }));
  test('malformed header', () =>
    assertRejected(payload(), {
      'content-type': 'application/json',
      'stripe-signature': 'garbage',
    }));
  test('wrong secret', () => {
    const body = payload();
    return assertRejected(body, signedHeaders(body, 'whsec_someone_else'));
  });
  test('a signature 300 s old is accepted; 301 s old (stale) is refused', async (context) => {
    const second = stopClock(context);
    await assertAccepted(...signedAtOffset(second, -300));
    await assertRejected(...signedAtOffset(second, -301));
  });
  test('a signature 300 s ahead is accepted; 301 s ahead (future) is refused', async (context) => {
    const second = stopClock(context);
    await assertAccepted(...signedAtOffset(second, 300));
    await assertRejected(...signedAtOffset(second, 301));
  });
  test('an event dated 60 s after its signature is accepted, 61 s after refused; one dated days before it (a redelivery) is accepted', async (context) => {
    const signedAt = stopClock(context);
    await assertAccepted(...datedAfterSignature(signedAt, 60));
    await assertRejected(...datedAfterSignature(signedAt, 61));
    await assertAccepted(...datedAfterSignature(signedAt, -3 * 86_400));
  });
  test('a correctly signed event dated in the year 9999', () => {
    const body = JSON.stringify(
      eventOf(
        'customer.created',
        { id: 'cus_1', object: 'customer' },
        { created: 253_402_300_799 },
      ),
    );
    return assertRejected(body, signedHeaders(body, CURRENT));
  });
  test('tampered body', () => {
    const body = payload();
    return assertRejected(body.replace('cus_1', 'cus_2'), signedHeaders(body, CURRENT));
  });
  test('a signed body that is not an event', () => {
    const body = JSON.stringify({ hello: 'world' });
    return assertRejected(body, signedHeaders(body, CURRENT));
  });

  test('current and rotated-out secrets are both accepted', async () => {
    for (const secret of [CURRENT, PREVIOUS]) {
      const body = payload();
      const response = await post(body, signedHeaders(body, secret));
      assert.equal(response.statusCode, 200, secret);
    }
  });

  test('several v1 signatures: one valid is enough', async () => {
    const body = JSON.stringify(eventOf('customer.subscription.created', subscriptionObject()));
    const t0 = now();
    const valid = createHmac('sha256', CURRENT).update(`${t0}.${body}`).digest('hex');
    const header = `t=${t0},v1=${'0'.repeat(64)},v1=${valid}`;
    const response = await post(body, {
      'content-type': 'application/json',
      'stripe-signature': header,
    });
    assert.equal(response.statusCode, 200);
  });

  test('a body over the limit is refused with 413', async () => {
    const body = JSON.stringify(eventOf('customer.created', { filler: 'x'.repeat(1024 * 1024) }));
    const response = await post(body, signedHeaders(body, CURRENT));
    assert.equal(response.statusCode, 413);
    assert.equal(typeof response.json().detail, 'string');
  });
});
