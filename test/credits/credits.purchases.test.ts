// Purchases and what the application is told (contract section 14, Purchases and Outbound events):
// a pack's checkout.session.completed with payment_status paid adds its credits; `unpaid` adds
// nothing until checkout.session.async_payment_succeeded, which adds them once; async_payment_failed
// and expired add nothing; a pack not for sale, or a subscription's session naming a pack, adds
// nothing. GET /credits lists the packs in BILLING_CREDIT_PACKS's order with the provider's amounts.
// `credits.purchased` says the pack, its credits and the balance; `credits.depleted` comes when the
// balance reaches zero, at most once until it is above zero again.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import { DEV_SERVICE_CLIENT } from '../../src/config.ts';
import { bearer, buildTestApp, profileId, type TestApp } from '../helpers/app.ts';
import { startAppReceiver, type AppReceiver } from '../helpers/app-receiver.ts';
import { databaseLabel } from '../helpers/database.ts';
import {
  checkoutSessionObject,
  deliver,
  eventOf,
  type FixtureEvent,
} from '../helpers/stripe-fixtures.ts';

const hex = () => randomBytes(6).toString('hex');

describe(`credit purchases and their events (${databaseLabel})`, () => {
  let t: TestApp;
  let receiver: AppReceiver;
  before(async () => {
    receiver = await startAppReceiver();
    t = await buildTestApp({ APP_WEBHOOK_URL: receiver.url, APP_WEBHOOK_SECRET: receiver.secret });
  });
  after(async () => {
    await t?.close();
    await receiver?.close();
  });

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
    return response.json();
  };

  const kinds = async (sub: string) => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/credits/ledger?limit=200',
      headers: bearer(await t.token(sub)),
    });
    return (response.json().entries as { id: string; kind: string; amount: number }[])
      .sort((a, b) => Number(a.id) - Number(b.id))
      .map((e) => [e.kind, e.amount]);
  };

  const session = (id: string, overrides: Partial<Stripe.Checkout.Session> = {}) =>
    checkoutSessionObject({
      mode: 'payment',
      subscription: null,
      customer: `cus_${hex()}`,
      client_reference_id: id,
      metadata: { user_id: id, credit_pack: 'small' },
      payment_intent: `pi_${hex()}`,
      ...overrides,
    });

  const spend = async (sub: string, amount: number) => {
    const token = await t.token('backend', undefined, {
      email: undefined,
      extra: { client_id: DEV_SERVICE_CLIENT, scope: 'billing:credits', gty: 'client-credentials' },
    });
    return t.app.inject({
      method: 'POST',
      url: '/api/v1/credits/spend',
      headers: bearer(token),
      payload: { subject: { type: 'user', idp_id: sub }, amount, idempotency_key: hex() },
    });
  };

  /** The events the application is to be told about the user, oldest first, credits' only. */
  const told = async (id: string) =>
    (
      await t.composition.db.query<{ body: string }>(
        `SELECT body FROM outbound_events WHERE subject_id = $1 AND type LIKE 'credits.%'
         ORDER BY seq`,
        [id],
      )
    ).map((row) => JSON.parse(row.body) as { type: string; data: Record<string, unknown> });

  test("GET /credits lists the packs in order, with the provider's amounts; it makes the profile", async () => {
    const read = await credits('buy-lister');
    assert.deepEqual(read.packs, [
      { name: 'small', credits: 500, price: { amount: 900, currency: 'usd' } },
      { name: 'large', credits: 2500, price: { amount: 3500, currency: 'usd' } },
    ]);
    assert.equal(read.subject.type, 'user');
    assert.equal(read.subject.id, await profileId(t, 'buy-lister'), 'the profile it made');
  });

  test('unpaid adds nothing; async_payment_succeeded adds the pack once', async () => {
    const id = await profileId(t, 'buy-later');
    const start = (await credits('buy-later')).balance;
    const unpaid = session(id, { payment_status: 'unpaid' });
    await accepted(eventOf('checkout.session.completed', unpaid));
    assert.equal((await credits('buy-later')).purchased, 0);
    const paid = { ...unpaid, payment_status: 'paid' as const };
    const succeeded = eventOf('checkout.session.async_payment_succeeded', paid);
    await accepted(succeeded);
    await accepted({ ...succeeded, id: `${succeeded.id}_again` });
    await accepted(eventOf('checkout.session.completed', paid));
    const read = await credits('buy-later');
    assert.equal(read.purchased, 500);
    assert.equal(read.balance, start + 500);
    assert.equal((await kinds('buy-later')).filter(([kind]) => kind === 'purchase').length, 1);
  });

  test('async_payment_failed and expired add nothing', async () => {
    const id = await profileId(t, 'buy-failed');
    const unpaid = session(id, { payment_status: 'unpaid' });
    await accepted(eventOf('checkout.session.completed', unpaid));
    await accepted(eventOf('checkout.session.async_payment_failed', unpaid));
    const expired = session(id, { status: 'expired', payment_status: 'unpaid' });
    await accepted(eventOf('checkout.session.expired', expired));
    const read = await credits('buy-failed');
    assert.equal(read.purchased, 0);
    assert.equal((await kinds('buy-failed')).filter(([kind]) => kind === 'purchase').length, 0);
  });

  test("a pack not for sale, or a subscription's session naming a pack, adds nothing", async () => {
    const id = await profileId(t, 'buy-odd');
    await accepted(
      eventOf(
        'checkout.session.completed',
        session(id, { metadata: { user_id: id, credit_pack: 'gigantic' } }),
      ),
    );
    assert.equal((await credits('buy-odd')).purchased, 0);
    await accepted(
      eventOf(
        'checkout.session.completed',
        checkoutSessionObject({
          client_reference_id: id,
          metadata: { user_id: id, credit_pack: 'small' },
        }),
      ),
    );
    assert.equal((await credits('buy-odd')).purchased, 0);
  });

  test('credits.purchased with the pack, its credits and the balance; credits.depleted once at zero, again only after a top-up', async () => {
    const id = await profileId(t, 'buy-told');
    const start = (await credits('buy-told')).balance;
    await accepted(eventOf('checkout.session.completed', session(id)));
    const [purchased] = await told(id);
    assert.equal(purchased!.type, 'credits.purchased');
    assert.deepEqual(
      { ...purchased!.data, subject: undefined },
      { subject: undefined, pack: 'small', credits: 500, balance: start + 500 },
    );
    assert.deepEqual(purchased!.data.subject, { type: 'user', id, idp_id: 'buy-told' });
    assert.equal((await spend('buy-told', start + 500)).statusCode, 200);
    assert.equal((await spend('buy-told', 1)).statusCode, 402);
    assert.equal((await spend('buy-told', 5)).statusCode, 402);
    assert.deepEqual(
      (await told(id)).map((e) => [e.type, e.data.balance]),
      [
        ['credits.purchased', start + 500],
        ['credits.depleted', 0],
      ],
      'told once that it ran out, not again for the refused spends',
    );
    await accepted(eventOf('checkout.session.completed', session(id)));
    assert.equal((await spend('buy-told', 500)).statusCode, 200);
    assert.deepEqual(
      (await told(id)).map((e) => e.type),
      ['credits.purchased', 'credits.depleted', 'credits.purchased', 'credits.depleted'],
    );
    // A spend refused while some credits are left says so too, once until a top-up.
    await accepted(eventOf('checkout.session.completed', session(id)));
    assert.equal((await spend('buy-told', 499)).statusCode, 200);
    assert.equal((await spend('buy-told', 2)).statusCode, 402);
    assert.equal((await spend('buy-told', 3)).statusCode, 402);
    assert.equal((await spend('buy-told', 1)).statusCode, 200);
    assert.deepEqual(
      (await told(id)).slice(4).map((e) => [e.type, e.data.balance]),
      [
        ['credits.purchased', 500],
        ['credits.depleted', 1],
      ],
      'told when the first spend was refused, not again, nor when the last credit went',
    );
  });
});
