// Each handled event type changes the state it should; other types are recorded as ignored;
// an event already recorded is answered `duplicate` without running its handler again.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, profileOf, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import {
  checkoutSessionObject,
  deliver,
  eventOf,
  invoiceObject,
  subscriptionObject,
} from '../helpers/stripe-fixtures.ts';

describe(`webhook events (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const profile = (sub: string) => profileOf(t, sub);
  const subscriptionRow = async (id: string) =>
    (
      await t.composition.db.query<{ status: string; payment_failed_at: Date | null }>(
        'SELECT * FROM subscriptions WHERE id = $1',
        [id],
      )
    )[0];
  const recorded = async (id: string) =>
    (
      await t.composition.db.query<{ outcome: string }>(
        'SELECT outcome FROM webhook_events WHERE id = $1',
        [id],
      )
    )[0]?.outcome;

  test('checkout.session.completed links the customer to the user named by client_reference_id', async () => {
    const user = await profile('linda');
    const session = checkoutSessionObject({ client_reference_id: user.id, subscription: null });
    const event = eventOf('checkout.session.completed', session);
    const response = await deliver(t.app, event);
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { status: 'processed' });
    const [row] = await t.composition.db.query<{ payments_customer_id: string }>(
      'SELECT payments_customer_id FROM users WHERE id = $1',
      [user.id],
    );
    assert.equal(row!.payments_customer_id, session.customer);
    assert.equal(await recorded(event.id), 'processed');
  });

  test('customer.subscription.created for a user named in metadata upgrades the tier', async () => {
    const user = await profile('mike');
    const subscription = subscriptionObject({
      metadata: { user_id: user.id },
      priceId: 'price_sim_team',
    });
    assert.equal(
      (await deliver(t.app, eventOf('customer.subscription.created', subscription))).statusCode,
      200,
    );
    assert.equal((await profile('mike')).tier, 'team');
  });

  test('customer.subscription.updated to past_due keeps the tier during the grace period', async () => {
    const user = await profile('nina');
    const subscription = subscriptionObject({ metadata: { user_id: user.id } });
    const created = Math.floor(Date.now() / 1000) - 100;
    await deliver(t.app, eventOf('customer.subscription.created', subscription, { created }));
    await deliver(
      t.app,
      eventOf(
        'customer.subscription.updated',
        { ...subscription, status: 'past_due' },
        { created: created + 10 },
      ),
    );
    assert.equal((await subscriptionRow(subscription.id))!.status, 'past_due');
    assert.ok((await subscriptionRow(subscription.id))!.payment_failed_at instanceof Date);
    assert.equal((await profile('nina')).tier, 'pro');
  });

  test('customer.subscription.deleted returns the user to free', async () => {
    const user = await profile('oscar');
    const subscription = subscriptionObject({ metadata: { user_id: user.id } });
    const created = Math.floor(Date.now() / 1000) - 100;
    await deliver(t.app, eventOf('customer.subscription.created', subscription, { created }));
    assert.equal((await profile('oscar')).tier, 'pro');
    await deliver(
      t.app,
      eventOf(
        'customer.subscription.deleted',
        { ...subscription, status: 'canceled' },
        { created: created + 5 },
      ),
    );
    assert.equal((await profile('oscar')).tier, 'free');
  });

  test('invoice events for a subscription the provider does not know are recorded and change nothing', async () => {
    const user = await profile('paula');
    const subscription = subscriptionObject({ metadata: { user_id: user.id } });
    await deliver(
      t.app,
      eventOf('customer.subscription.created', subscription, {
        created: Math.floor(Date.now() / 1000) - 50,
      }),
    );
    for (const type of ['invoice.paid', 'invoice.payment_failed']) {
      const event = eventOf(type, invoiceObject(subscription.id, String(subscription.customer)));
      assert.deepEqual((await deliver(t.app, event)).json(), { status: 'processed' });
    }
    assert.equal((await subscriptionRow(subscription.id))!.status, 'active');
  });

  test('an unhandled type is recorded and acknowledged as ignored', async () => {
    const event = eventOf('customer.created', { id: 'cus_x', object: 'customer' });
    assert.deepEqual((await deliver(t.app, event)).json(), { status: 'ignored' });
    assert.equal(await recorded(event.id), 'ignored');
  });

  test('an event from the other mode (livemode true against a test key) is acknowledged and ignored', async () => {
    const event = eventOf('customer.subscription.created', subscriptionObject(), {
      livemode: true,
    });
    assert.deepEqual((await deliver(t.app, event)).json(), { status: 'ignored' });
    assert.equal(await recorded(event.id), undefined);
  });

  test('a subscription for a customer nobody knows is acknowledged, nothing created for a stranger', async () => {
    const before = await t.composition.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM users',
    );
    const subscription = subscriptionObject();
    assert.deepEqual(
      (await deliver(t.app, eventOf('customer.subscription.created', subscription))).json(),
      { status: 'processed' },
    );
    assert.equal(await subscriptionRow(subscription.id), undefined);
    assert.deepEqual(await t.composition.db.query('SELECT count(*)::int AS n FROM users'), before);
  });

  test('a redelivery of a processed event answers duplicate and changes nothing', async () => {
    const user = await profile('quinn');
    const subscription = subscriptionObject({ metadata: { user_id: user.id } });
    const event = eventOf('customer.subscription.created', subscription);
    assert.deepEqual((await deliver(t.app, event)).json(), { status: 'processed' });
    await t.composition.db.query("UPDATE subscriptions SET status = 'unpaid' WHERE id = $1", [
      subscription.id,
    ]);
    assert.deepEqual((await deliver(t.app, event)).json(), { status: 'duplicate' });
    assert.equal((await subscriptionRow(subscription.id))!.status, 'unpaid');
  });

  test("a subscription whose metadata names another user than its customer's stays with the customer's user", async () => {
    const owner = await profile('owner-of-customer');
    const other = await profile('named-in-metadata');
    const subscription = subscriptionObject({
      metadata: { user_id: other.id },
      priceId: 'price_sim_team',
    });
    await t.composition.store.users.linkCustomer(owner.id, String(subscription.customer));
    assert.deepEqual(
      (await deliver(t.app, eventOf('customer.subscription.created', subscription))).json(),
      { status: 'processed' },
    );
    assert.equal((await profile('owner-of-customer')).tier, 'team');
    assert.equal((await profile('named-in-metadata')).tier, 'free');
  });
});
