// The webhook accepts only bodies signed with a configured secret over the exact bytes, within
// 300 s either way. Every rejection is a 400 with a detail, and leaves nothing stored.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
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
  test('stale timestamp (older than 300 s)', () => {
    const body = payload();
    return assertRejected(body, signedHeaders(body, CURRENT, now() - 301));
  });
  test('future timestamp (more than 300 s ahead)', () => {
    const body = payload();
    return assertRejected(body, signedHeaders(body, CURRENT, now() + 301));
  });
  test('a correctly signed event dated after its signature (beyond the skew)', () => {
    const body = JSON.stringify(
      eventOf('customer.subscription.updated', subscriptionObject(), { created: now() + 3600 }),
    );
    return assertRejected(body, signedHeaders(body, CURRENT));
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
