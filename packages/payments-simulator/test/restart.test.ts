// The simulator's state lives in the database: closing it and starting another on the same
// database keeps customers, sessions, subscriptions, events and idempotency keys, and resumes the
// deliveries still pending.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  control,
  databaseLabel,
  openCheckout,
  openTestDb,
  pay,
  sdk,
  startReceiver,
  startSimulator,
  type TestDb,
} from './harness.ts';

describe(`simulator restart (${databaseLabel})`, () => {
  let database: TestDb;
  before(async () => {
    database = await openTestDb();
  });
  after(() => database.close());

  test('state survives a restart, and pending deliveries resume', async () => {
    const receiver = await startReceiver();
    let target: string | null = null;
    const first = await startSimulator(database.db, { webhookUrl: () => target });
    const stripe = sdk(first);
    const key = 'restart-customer';
    const customer = await stripe.customers.create(
      { email: 'restart@example.com' },
      { idempotencyKey: key },
    );
    const { session } = await openCheckout(stripe, 'restart-user');
    await pay(first, session.id);
    const subscriptionId = (await stripe.checkout.sessions.retrieve(session.id))
      .subscription as string;
    assert.equal((await stripe.events.list({ delivery_success: false })).data.length, 3);
    await first.close();

    target = receiver.url;
    const second = await startSimulator(database.db, { webhookUrl: () => target });
    try {
      const again = sdk(second);
      await receiver.waitFor(3, 5_000);
      assert.deepEqual(
        receiver.events.map((e) => e.type),
        ['checkout.session.completed', 'customer.subscription.created', 'invoice.paid'],
      );
      assert.equal((await again.events.list({ delivery_success: false })).data.length, 0);

      assert.equal((await again.customers.retrieve(customer.id)).id, customer.id);
      const replay = await again.customers.create(
        { email: 'restart@example.com' },
        { idempotencyKey: key },
      );
      assert.equal(replay.id, customer.id);
      assert.equal((await again.checkout.sessions.retrieve(session.id)).status, 'complete');
      assert.equal((await again.subscriptions.retrieve(subscriptionId)).status, 'active');
      assert.equal((await again.prices.retrieve('price_sim_pro')).unit_amount, 1500);

      const renewed = await control(second, subscriptionId, 'renew');
      assert.equal(renewed.status, 200);
      assert.ok(renewed.body.events.every((e) => e.delivered));
      const invoices = await again.invoices.list({ subscription: subscriptionId });
      assert.equal(invoices.data.length, 2);
      assert.deepEqual(
        invoices.data.map((i) => i.number?.slice(-4)),
        ['0002', '0001'],
      );
    } finally {
      await second.close();
      await receiver.close();
    }
  });
});
