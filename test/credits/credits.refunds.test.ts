// charge.refunded for a credit pack's payment (contract section 14, Purchases): each refund removes
// floor(credits * amount_refunded / amount) less what the earlier refunds of that payment were due
// (300, 600 and 900 of 900 for 500 credits: 166, 167, 167), in any order and once however often it
// is delivered; taken from the purchased credits as far as they go, the balance never below zero,
// what could not be removed said on the entry and not carried to a later refund. A refund of a
// payment that bought no pack changes nothing.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { DEV_SERVICE_CLIENT } from '../../src/config.ts';
import { bearer, buildTestApp, profileId, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import {
  checkoutSessionObject,
  deliver,
  eventOf,
  type FixtureEvent,
} from '../helpers/stripe-fixtures.ts';

interface Entry {
  id: string;
  kind: string;
  amount: number;
  balance_after: number;
  reason: string | null;
}

const hex = () => randomBytes(6).toString('hex');

/** What paying a pack made: the session's event, its payment and its charge. */
interface Purchase {
  paid: FixtureEvent;
  paymentIntent: string;
  charge: string;
}

function packPurchase(userId: string, customer: string, pack = 'small'): Purchase {
  const paymentIntent = `pi_${hex()}`;
  const paid = eventOf(
    'checkout.session.completed',
    checkoutSessionObject({
      mode: 'payment',
      subscription: null,
      customer,
      client_reference_id: userId,
      metadata: { user_id: userId, credit_pack: pack },
      payment_intent: paymentIntent,
    }),
  );
  return { paid, paymentIntent, charge: `ch_${hex()}` };
}

/** charge.refunded as Stripe sends it: the charge with all its refunds so far (`amount_refunded`). */
const refunded = (
  { paymentIntent, charge }: { paymentIntent: string | null; charge: string },
  amountRefunded: number,
  amount = 900,
) =>
  eventOf('charge.refunded', {
    id: charge,
    object: 'charge',
    amount,
    amount_captured: amount,
    amount_refunded: amountRefunded,
    refunded: amountRefunded === amount,
    currency: 'usd',
    paid: true,
    status: 'succeeded',
    livemode: false,
    payment_intent: paymentIntent,
  });

describe(`credit refunds (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const accepted = async (event: FixtureEvent) => {
    const response = await deliver(t.app, event);
    assert.equal(response.statusCode, 200, response.body);
  };

  const credits = async (sub: string) => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/credits',
      headers: bearer(await t.token(sub)),
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as { balance: number; purchased: number; grant: unknown };
  };

  /** Every entry, oldest first (by id: the ledger's own order is credits.ledger.test.ts's). */
  const ledger = async (sub: string): Promise<Entry[]> => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/credits/ledger?limit=200',
      headers: bearer(await t.token(sub)),
    });
    assert.equal(response.statusCode, 200, response.body);
    return (response.json().entries as Entry[]).sort((a, b) => Number(a.id) - Number(b.id));
  };

  const refunds = async (sub: string) =>
    (await ledger(sub)).filter((entry) => entry.kind === 'refund');

  const spend = async (sub: string, amount: number) => {
    const token = await t.token('backend', undefined, {
      email: undefined,
      extra: { client_id: DEV_SERVICE_CLIENT, scope: 'billing:credits', gty: 'client-credentials' },
    });
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credits/spend',
      headers: bearer(token),
      payload: { subject: { type: 'user', idp_id: sub }, amount, idempotency_key: hex() },
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json().balance as number;
  };

  /** A user with one small pack (500 credits) bought; the purchase. */
  const buyer = async (sub: string) => {
    const id = await profileId(t, sub);
    const purchase = packPurchase(id, `cus_${sub}`);
    await accepted(purchase.paid);
    assert.equal((await credits(sub)).purchased, 500);
    return { id, purchase };
  };

  /** Every entry's balance_after follows from the one before it and its amount, never below zero. */
  const assertConsistent = (entries: Entry[]) => {
    let balance = 0;
    for (const entry of entries) {
      balance += entry.amount;
      assert.equal(entry.balance_after, balance, JSON.stringify(entry));
      assert.ok(entry.balance_after >= 0, JSON.stringify(entry));
    }
  };

  test('three refunds of 300 of a 900 payment for 500 credits remove 166, 167 and 167', async () => {
    const { purchase } = await buyer('ref-in-order');
    const start = await credits('ref-in-order');
    for (const [cumulative, removed, purchasedAfter] of [
      [300, 166, 334],
      [600, 167, 167],
      [900, 167, 0],
    ] as const) {
      await accepted(refunded(purchase, cumulative));
      const now = await credits('ref-in-order');
      assert.equal(now.purchased, purchasedAfter, `after ${cumulative} refunded`);
      assert.equal(now.balance, start.balance - (500 - purchasedAfter));
      const last = (await refunds('ref-in-order')).at(-1)!;
      assert.equal(last.amount, -removed);
      assert.doesNotMatch(last.reason ?? '', /not removed/, 'nothing short to say');
    }
    assert.deepEqual(
      (await refunds('ref-in-order')).map((entry) => entry.amount),
      [-166, -167, -167],
    );
    assertConsistent(await ledger('ref-in-order'));
  });

  test('delivered out of order (600 before 300): the same 500 removed in all', async () => {
    const { purchase } = await buyer('ref-out-of-order');
    await accepted(refunded(purchase, 600));
    assert.equal((await credits('ref-out-of-order')).purchased, 500 - 333);
    await accepted(refunded(purchase, 300));
    assert.equal(
      (await credits('ref-out-of-order')).purchased,
      500 - 333,
      'the earlier refund, arriving late, was due nothing more',
    );
    await accepted(refunded(purchase, 900));
    assert.equal((await credits('ref-out-of-order')).purchased, 0);
    const removed = (await refunds('ref-out-of-order')).reduce((sum, e) => sum + e.amount, 0);
    assert.equal(removed, -500);
    assertConsistent(await ledger('ref-out-of-order'));
  });

  test('a redelivery, or another event of the same refund, removes nothing', async () => {
    const { purchase } = await buyer('ref-again');
    const first = refunded(purchase, 300);
    await accepted(first);
    const after = await credits('ref-again');
    assert.equal(after.purchased, 500 - 166);
    await accepted(first);
    await accepted({ ...first, id: `${first.id}_twin` });
    await accepted(refunded(purchase, 300));
    assert.deepEqual(await credits('ref-again'), after);
    assert.equal((await refunds('ref-again')).length, 1);
  });

  test('a refund after most credits were spent: balance 0, the shortfall said, not carried to a later refund', async () => {
    const { id, purchase } = await buyer('ref-spent');
    const start = await credits('ref-spent');
    // Spend all but 50 credits: the grant (if any) first, then 450 of the pack.
    assert.equal(await spend('ref-spent', start.balance - 50), 50);
    assert.equal((await credits('ref-spent')).purchased, 50);
    await accepted(refunded(purchase, 300));
    const drained = await credits('ref-spent');
    assert.equal(drained.balance, 0);
    assert.equal(drained.purchased, 0);
    const short = (await refunds('ref-spent')).at(-1)!;
    assert.equal(short.amount, -50);
    assert.equal(short.balance_after, 0);
    assert.ok(short.reason !== null, 'the refund entry says what could not be removed');
    assert.match(short.reason, /\b116\b.*not removed/, short.reason);
    // A second pack, then the next refund of the first payment: only its own 167 is removed.
    const second = packPurchase(id, 'cus_ref-spent');
    await accepted(second.paid);
    assert.equal((await credits('ref-spent')).purchased, 500);
    await accepted(refunded(purchase, 600));
    const later = await credits('ref-spent');
    assert.equal(later.purchased, 500 - 167, 'the earlier shortfall is not taken now');
    const next = (await refunds('ref-spent')).at(-1)!;
    assert.equal(next.amount, -167);
    assert.doesNotMatch(next.reason ?? '', /not removed|\b116\b/, 'no shortfall, none carried');
    assertConsistent(await ledger('ref-spent'));
  });

  test('a refund of a payment that bought no pack changes nothing', async () => {
    const { purchase } = await buyer('ref-other');
    const before = await credits('ref-other');
    const entries = await ledger('ref-other');
    await accepted(refunded({ paymentIntent: `pi_${hex()}`, charge: `ch_${hex()}` }, 900));
    await accepted(refunded({ paymentIntent: null, charge: `ch_${hex()}` }, 900));
    await accepted(refunded({ paymentIntent: `pi_${hex()}`, charge: purchase.charge }, 300, 600));
    assert.deepEqual(await credits('ref-other'), before);
    assert.deepEqual(await ledger('ref-other'), entries);
  });
});
