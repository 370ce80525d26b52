// Credits end to end on one instance: a pack paid (a signed checkout.session.completed) adds its
// credits once; the backend spends them with idempotency keys; the ledger shows each entry.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEV_SERVICE_CLIENT } from '../../src/config.ts';
import { bearer, buildTestApp, profileId, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { checkoutSessionObject, deliver, eventOf } from '../helpers/stripe-fixtures.ts';

const serviceToken = (t: TestApp) =>
  t.token('backend', undefined, {
    email: undefined,
    extra: { client_id: DEV_SERVICE_CLIENT, scope: 'billing:credits', gty: 'client-credentials' },
  });

const spend = async (t: TestApp, body: Record<string, unknown>) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/credits/spend',
    headers: bearer(await serviceToken(t)),
    payload: body,
  });

const credits = async (t: TestApp, sub: string, path = '') =>
  t.app.inject({
    method: 'GET',
    url: `/api/v1/credits${path}`,
    headers: bearer(await t.token(sub)),
  });

const packPaid = (userId: string, pack = 'small', overrides = {}) =>
  eventOf(
    'checkout.session.completed',
    checkoutSessionObject({
      mode: 'payment',
      subscription: null,
      client_reference_id: userId,
      metadata: { user_id: userId, credit_pack: pack },
      payment_intent: `pi_${userId.slice(0, 8)}_${pack}`,
      ...overrides,
    }),
  );

describe(`credits (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  test('a paid pack adds its credits once; the backend spends them', async () => {
    const id = await profileId(t, 'alice');
    const paid = packPaid(id);
    assert.equal((await deliver(t.app, paid)).statusCode, 200);
    const again = { ...paid, id: `${paid.id}_thin_twin` };
    assert.equal((await deliver(t.app, again)).statusCode, 200);
    const read = await credits(t, 'alice');
    assert.equal(read.statusCode, 200, read.body);
    const body = read.json();
    assert.equal(body.purchased, 500);
    assert.equal(body.balance, 500 + (body.grant?.remaining ?? 0));
    const first = await spend(t, {
      subject: { type: 'user', idp_id: 'alice' },
      amount: 3,
      idempotency_key: 'k1',
    });
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json().balance, body.balance - 3);
    const repeat = await spend(t, {
      subject: { type: 'user', idp_id: 'alice' },
      amount: 3,
      idempotency_key: 'k1',
    });
    assert.deepEqual(repeat.json(), first.json());
    const other = await spend(t, {
      subject: { type: 'user', idp_id: 'alice' },
      amount: 4,
      idempotency_key: 'k1',
    });
    assert.equal(other.statusCode, 409);
    const tooMuch = await spend(t, {
      subject: { type: 'user', idp_id: 'alice' },
      amount: 1_000_000,
      idempotency_key: 'k2',
    });
    assert.equal(tooMuch.statusCode, 402);
    assert.equal(tooMuch.json().balance, body.balance - 3);
    const ledger = await credits(t, 'alice', '/ledger?limit=2');
    assert.equal(ledger.statusCode, 200, ledger.body);
    const page = ledger.json();
    assert.equal(page.entries[0].kind, 'spend');
    assert.equal(page.entries[0].amount, -3);
    assert.equal(page.entries[1].kind, 'purchase');
    assert.equal(page.next, page.entries[1].id);
  });
});
