// Credit packs end to end against the embedded simulator, its events delivered to the service as
// under `npm start` (contract section 14, Locally): a pack paid by card on the hosted page adds its
// credits; three refunds of 3.00 of its 9.00 made at the provider remove 166, 167 and 167; a bank
// debit adds nothing until it settles, then the pack once; one that fails adds nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, buildTestApp, deliverWebhooks, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/browser.ts';
import { databaseLabel } from '../helpers/database.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';

interface Credits {
  balance: number;
  purchased: number;
}

describe(`credit packs against the simulator (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
    await deliverWebhooks(t);
  });
  after(() => t.close());

  const credits = async (sub: string): Promise<Credits> => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/credits',
      headers: bearer(await t.token(sub)),
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };

  const refundsOf = async (sub: string) => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/credits/ledger?limit=200',
      headers: bearer(await t.token(sub)),
    });
    return (response.json().entries as { id: string; kind: string; amount: number }[])
      .filter((e) => e.kind === 'refund')
      .sort((a, b) => Number(a.id) - Number(b.id))
      .map((e) => e.amount);
  };

  /** Checks out a pack as `sub` and pays on the hosted page; the session's id. */
  const buy = async (sub: string, method: 'card' | 'us_bank_account', pack = 'small') => {
    const checkout = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credits/checkout',
      headers: bearer(await t.token(sub)),
      payload: { pack },
    });
    assert.equal(checkout.statusCode, 200, checkout.body);
    const { url } = checkout.json() as { url: string };
    const paid = await fetch(`${url}/pay`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ payment_method_type: method }).toString(),
    });
    assert.equal(paid.status, 303, await paid.text());
    return new URL(url).pathname.split('/').pop()!;
  };

  const paymentIntentOf = async (sessionId: string) => {
    const session = await simulatorClient(t).checkout.sessions.retrieve(sessionId);
    assert.equal(session.mode, 'payment');
    assert.equal(typeof session.payment_intent, 'string');
    return session.payment_intent as string;
  };

  const settle = async (paymentIntent: string, action: 'settle' | 'fail') => {
    const response = await fetch(
      `${t.composition.simulatorUrl}/_sim/payment_intents/${paymentIntent}/${action}`,
      { method: 'POST', headers: { authorization: `Bearer ${t.config.payments.apiKey}` } },
    );
    assert.equal(response.status, 200, await response.text());
  };

  test('paid by card: 500 credits; refunds of 300, 300 and 300 of 900 remove 166, 167 and 167', async () => {
    const start = await credits('sim-card');
    const session = await buy('sim-card', 'card');
    const bought = await until(
      () => credits('sim-card'),
      (c) => c.purchased === 500,
      20_000,
    );
    assert.equal(bought.purchased, 500);
    assert.equal(bought.balance, start.balance + 500);
    const paymentIntent = await paymentIntentOf(session);
    const stripe = simulatorClient(t);
    for (const [left, removed] of [
      [334, [-166]],
      [167, [-166, -167]],
      [0, [-166, -167, -167]],
    ] as const) {
      await stripe.refunds.create({ payment_intent: paymentIntent, amount: 300 });
      const now = await until(
        () => credits('sim-card'),
        (c) => c.purchased === left,
        20_000,
      );
      assert.equal(now.purchased, left);
      assert.deepEqual(await refundsOf('sim-card'), removed);
    }
  });

  /** How many events of `type` the service has recorded. */
  const received = async (type: string) =>
    (
      await t.composition.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM webhook_events WHERE type = $1',
        [type],
      )
    )[0]!.n;

  /** Waits until the service has recorded `more` events of `type` beyond `from`. */
  const receivedMore = async (type: string, from: number, more: number) =>
    assert.equal(
      await until(
        () => received(type),
        (n) => n >= from + more,
        20_000,
      ),
      from + more,
      type,
    );

  test('a bank debit: nothing while it processes, the pack once it settles; a failed one adds nothing', async () => {
    const start = await credits('sim-bank');
    const completed = await received('checkout.session.completed');
    const settling = await buy('sim-bank', 'us_bank_account');
    const failing = await buy('sim-bank', 'us_bank_account', 'large');
    const [settled, failed] = await Promise.all([settling, failing].map(paymentIntentOf));
    await receivedMore('checkout.session.completed', completed, 2);
    assert.deepEqual(await credits('sim-bank'), start, 'completed unpaid: nothing added');
    const failures = await received('checkout.session.async_payment_failed');
    const successes = await received('checkout.session.async_payment_succeeded');
    await settle(failed!, 'fail');
    await settle(settled!, 'settle');
    await receivedMore('checkout.session.async_payment_failed', failures, 1);
    await receivedMore('checkout.session.async_payment_succeeded', successes, 1);
    const after = await credits('sim-bank');
    assert.equal(after.purchased, start.purchased + 500, 'the small pack, not the large');
    assert.equal(after.balance, start.balance + 500);
  });
});
