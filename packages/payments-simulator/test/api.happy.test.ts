// The official stripe SDK against the simulator over HTTP: customers, checkout sessions with the
// bracket-notation fields read back, expansion, idempotent retries, expiry, prices and lists.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import type { PaymentsSimulator } from '../src/index.ts';
import {
  API_KEY,
  databaseLabel,
  openCheckout,
  openTestDb,
  sdk,
  startSimulator,
  type TestDb,
} from './harness.ts';

describe(`simulator API through the stripe SDK (${databaseLabel})`, () => {
  let database: TestDb;
  let simulator: PaymentsSimulator;
  let stripe: Stripe;
  before(async () => {
    database = await openTestDb();
    simulator = await startSimulator(database.db);
    stripe = sdk(simulator);
  });
  after(async () => {
    await simulator.close();
    await database.close();
  });

  test('creates a customer and retrieves it', async () => {
    const created = await stripe.customers.create({
      email: 'ada@example.com',
      name: 'Ada',
      metadata: { user_id: 'u-ada' },
    });
    assert.match(created.id, /^cus_\w+$/);
    assert.equal(created.object, 'customer');
    assert.equal(created.livemode, false);
    const read = await stripe.customers.retrieve(created.id);
    assert.deepEqual(read, created);
    assert.equal((read as Stripe.Customer).email, 'ada@example.com');
    assert.deepEqual((read as Stripe.Customer).metadata, { user_id: 'u-ada' });
  });

  test('creates a subscription checkout session from bracket fields and reads every one back', async () => {
    const { customer, session } = await openCheckout(stripe, 'u-bea', 'price_sim_team');
    assert.match(session.id, /^cs_test_\w+$/);
    assert.equal(session.object, 'checkout.session');
    assert.equal(session.url, `${simulator.url}/checkout/${session.id}`);
    assert.equal(session.status, 'open');
    assert.equal(session.payment_status, 'unpaid');
    assert.ok(Math.abs(session.expires_at - (session.created + 86_400)) <= 1);

    const read = await stripe.checkout.sessions.retrieve(session.id, { expand: ['line_items'] });
    assert.equal(read.mode, 'subscription');
    assert.equal(read.customer, customer.id);
    assert.equal(read.client_reference_id, 'u-bea');
    assert.equal(
      read.success_url,
      'https://app.example.test/billing/success?session_id={CHECKOUT_SESSION_ID}',
    );
    assert.equal(read.cancel_url, 'https://app.example.test/billing/cancel');
    assert.deepEqual(read.metadata, { user_id: 'u-bea' });
    assert.equal(read.amount_total, 4900);
    assert.equal(read.line_items?.data[0]?.price?.id, 'price_sim_team');
    assert.equal(read.line_items?.data[0]?.quantity, 1);
    const items = await stripe.checkout.sessions.listLineItems(session.id);
    assert.equal(items.data[0]?.price?.id, 'price_sim_team');
  });

  test('subscription_data metadata ends up on the subscription the payment creates', async () => {
    const { session } = await openCheckout(stripe, 'u-cy');
    const paid = await fetch(`${simulator.url}/_sim/checkout/sessions/${session.id}/pay`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk_test_simulator' },
    });
    assert.equal(paid.status, 200);
    const read = await stripe.checkout.sessions.retrieve(session.id, { expand: ['subscription'] });
    const subscription = read.subscription as Stripe.Subscription;
    assert.deepEqual(subscription.metadata, { user_id: 'u-cy' });
    assert.equal(subscription.items.data[0]?.price.id, 'price_sim_pro');
  });

  test('an idempotent retry returns the same object and creates nothing more', async () => {
    const key = `customer-${Date.now()}`;
    const first = await stripe.customers.create(
      { email: 'dan@example.com' },
      { idempotencyKey: key },
    );
    const second = await stripe.customers.create(
      { email: 'dan@example.com' },
      { idempotencyKey: key },
    );
    assert.deepEqual(second, first);
    assert.equal(second.lastResponse.headers['idempotent-replayed'], 'true');
    const all = await stripe.customers.list({ email: 'dan@example.com' });
    assert.equal(all.data.length, 1);
  });

  test('concurrent requests with one idempotency key create one object (the SDK retries the 409)', async () => {
    const client = new (stripe.constructor as typeof Stripe)('sk_test_simulator', {
      host: '127.0.0.1',
      port: new URL(simulator.url).port,
      protocol: 'http',
      maxNetworkRetries: 2,
    });
    const key = `concurrent-${Date.now()}`;
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        client.customers.create({ email: 'eve@example.com' }, { idempotencyKey: key }),
      ),
    );
    assert.equal(new Set(results.map((c) => c.id)).size, 1);
    assert.equal((await stripe.customers.list({ email: 'eve@example.com' })).data.length, 1);
  });

  test('expiring an open session marks it expired and records checkout.session.expired', async () => {
    const { session } = await openCheckout(stripe, 'u-fay');
    const expired = await stripe.checkout.sessions.expire(session.id);
    assert.equal(expired.status, 'expired');
    assert.equal(expired.url, null);
    assert.equal((await stripe.checkout.sessions.retrieve(session.id)).status, 'expired');
    const events = await stripe.events.list({ type: 'checkout.session.expired' });
    assert.ok(
      events.data.some((event) => (event.data.object as Stripe.Checkout.Session).id === session.id),
    );
  });

  test('prices are the configured tiers, monthly in USD', async () => {
    const pro = await stripe.prices.retrieve('price_sim_pro', { expand: ['product'] });
    assert.equal(pro.unit_amount, 1500);
    assert.equal(pro.currency, 'usd');
    assert.equal(pro.recurring?.interval, 'month');
    assert.equal((pro.product as Stripe.Product).name, 'Pro');
    assert.equal((await stripe.prices.retrieve('price_sim_team')).unit_amount, 4900);
  });

  test('lists paginate newest first with limit and starting_after', async () => {
    for (const name of ['g1', 'g2', 'g3'])
      await stripe.customers.create({ email: 'page@example.com', name });
    const first = await stripe.customers.list({ email: 'page@example.com', limit: 2 });
    assert.deepEqual(
      first.data.map((c) => c.name),
      ['g3', 'g2'],
    );
    assert.equal(first.has_more, true);
    const rest = await stripe.customers.list({
      email: 'page@example.com',
      limit: 2,
      starting_after: first.data[1]!.id,
    });
    assert.deepEqual(
      rest.data.map((c) => c.name),
      ['g1'],
    );
    assert.equal(rest.has_more, false);
    const all: string[] = [];
    for await (const customer of stripe.customers.list({ email: 'page@example.com', limit: 1 }))
      all.push(customer.name!);
    assert.deepEqual(all, ['g3', 'g2', 'g1']);
  });

  test('sessions list by customer and status', async () => {
    const { customer, session } = await openCheckout(stripe, 'u-hal');
    const open = await stripe.checkout.sessions.list({ customer: customer.id, status: 'open' });
    assert.deepEqual(
      open.data.map((s) => s.id),
      [session.id],
    );
    assert.equal(open.data[0]!.url, session.url);
  });

  test('counts the API calls it served by route; /_sim/calls reads and resets the count', async () => {
    const calls = (method: string) =>
      fetch(`${simulator.url}/_sim/calls`, {
        method,
        headers: { authorization: `Bearer ${API_KEY}` },
      });
    assert.equal((await calls('DELETE')).status, 204);
    const customer = await stripe.customers.create({ email: 'count@example.com' });
    await stripe.customers.retrieve(customer.id);
    await stripe.customers.retrieve(customer.id);
    await stripe.subscriptions.retrieve('sub_missing').catch(() => {});
    assert.deepEqual(await (await calls('GET')).json(), {
      calls: {
        'GET /v1/customers/:id': 2,
        'GET /v1/subscriptions/:id': 1,
        'POST /v1/customers': 1,
      },
    });
    await calls('DELETE');
    assert.deepEqual(await (await calls('GET')).json(), { calls: {} });
    assert.equal((await fetch(`${simulator.url}/_sim/calls`)).status, 401);
  });
});
