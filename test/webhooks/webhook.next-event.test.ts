// The next event of a known subscription is applied in one statement (the common case); these
// are the cases where that statement must keep what is stored or leave the decision to the
// careful path: the first failure time of a past_due run, and an event older than the
// provider re-read that last wrote the subscription.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { payWhileUnreachable, tierOf } from '../helpers/cli.ts';
import { databaseLabel } from '../helpers/database.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';
import { deliver, eventOf, invoiceObject, subscriptionObject } from '../helpers/stripe-fixtures.ts';

describe(`the next event of a known subscription (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const row = async (id: string) =>
    (
      await t.composition.db.query<{ status: string; payment_failed_at: Date | null }>(
        'SELECT status, payment_failed_at FROM subscriptions WHERE id = $1',
        [id],
      )
    )[0]!;

  test('a second past_due event keeps the time of the first failure; recovering clears it', async () => {
    const user = (
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/users/me',
        headers: bearer(await t.token('next-event-dunning')),
      })
    ).json();
    const base = subscriptionObject({ metadata: { user_id: user.id } });
    const start = Math.floor(Date.now() / 1000) - 1000;
    const snapshot = (status: string) =>
      subscriptionObject({
        id: base.id,
        customer: base.customer,
        created: base.created,
        metadata: base.metadata,
        status,
      } as never);
    for (const [i, [type, status]] of [
      ['customer.subscription.created', 'active'],
      ['customer.subscription.updated', 'past_due'],
      ['customer.subscription.updated', 'past_due'],
    ].entries()) {
      assert.equal(
        (await deliver(t.app, eventOf(type!, snapshot(status!), { created: start + i * 10 })))
          .statusCode,
        200,
      );
    }
    const failing = await row(base.id);
    assert.equal(failing.status, 'past_due');
    assert.equal(failing.payment_failed_at?.getTime(), (start + 10) * 1000);

    assert.equal(
      (
        await deliver(
          t.app,
          eventOf('customer.subscription.updated', snapshot('active'), { created: start + 30 }),
        )
      ).statusCode,
      200,
    );
    assert.deepEqual(await row(base.id), { status: 'active', payment_failed_at: null });
  });

  test('an event created before the last provider re-read is checked with the provider, not applied', async () => {
    await payWhileUnreachable(t, 'next-event-reread');
    const [user] = await t.composition.db.query<{ id: string; payments_customer_id: string }>(
      'SELECT id, payments_customer_id FROM users WHERE idp_id = $1',
      ['next-event-reread'],
    );
    const { data } = await simulatorClient(t).subscriptions.list({
      customer: user!.payments_customer_id,
    });
    const subscription = data[0]!;
    assert.equal(subscription.status, 'active');
    const start = Math.floor(Date.now() / 1000) - 100;

    // invoice.paid makes the service re-read the subscription now: active, synced now.
    assert.equal(
      (
        await deliver(
          t.app,
          eventOf('invoice.paid', invoiceObject(subscription.id, user!.payments_customer_id), {
            created: start,
          }),
        )
      ).statusCode,
      200,
    );
    assert.equal((await row(subscription.id)).status, 'active');

    // A delayed event from between that invoice and the re-read says past_due: newer than the
    // invoice, older than what the provider told us since. The provider still says active.
    const stale = subscriptionObject({
      id: subscription.id,
      customer: user!.payments_customer_id,
      metadata: { user_id: user!.id },
      status: 'past_due',
    });
    assert.equal(
      (
        await deliver(
          t.app,
          eventOf('customer.subscription.updated', stale, { created: start + 50 }),
        )
      ).statusCode,
      200,
    );
    assert.deepEqual(await row(subscription.id), { status: 'active', payment_failed_at: null });
    assert.equal(await tierOf(t, 'next-event-reread'), 'pro');
  });
});
