// Errors the way Stripe answers them, so the SDK raises its own error classes: a wrong or missing
// key, unknown objects, bad parameters, and misused idempotency keys.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Stripe from 'stripe';
import type { PaymentsSimulator } from '../src/index.ts';
import {
  databaseLabel,
  openTestDb,
  sdk,
  startSimulator,
  type TestDb,
  onceInTheSuite,
} from './harness.ts';

describe(`simulator API errors (${databaseLabel})`, onceInTheSuite, () => {
  let database: TestDb;
  let simulator: PaymentsSimulator;
  let stripe: Stripe;
  let customer: Stripe.Customer;
  before(async () => {
    database = await openTestDb();
    simulator = await startSimulator(database.db);
    stripe = sdk(simulator);
    customer = await stripe.customers.create({ email: 'err@example.com' });
  });
  after(async () => {
    await simulator.close();
    await database.close();
  });

  const session = (overrides: Partial<Stripe.Checkout.SessionCreateParams> = {}) =>
    stripe.checkout.sessions.create({
      mode: 'subscription',
      customer: customer.id,
      line_items: [{ price: 'price_sim_pro', quantity: 1 }],
      success_url: 'https://app.example.test/ok',
      ...overrides,
    });

  const rejects = (
    promise: Promise<unknown>,
    type: string,
    status: number,
    param?: string,
    message?: RegExp,
  ) =>
    assert.rejects(promise, (error: Stripe.errors.StripeError) => {
      assert.equal(error.type, type);
      assert.equal(error.statusCode, status);
      if (param !== undefined) assert.equal(error.param, param);
      if (message !== undefined) assert.match(error.message, message);
      return true;
    });

  test('a wrong key is a StripeAuthenticationError', async () => {
    await assert.rejects(
      sdk(simulator, 'sk_test_wrong').customers.retrieve(customer.id),
      Stripe.errors.StripeAuthenticationError,
    );
  });

  test('no key at all is a 401 in Stripe error shape', async () => {
    const response = await fetch(`${simulator.url}/v1/customers/${customer.id}`);
    assert.equal(response.status, 401);
    const body = await response.json();
    assert.equal(body.error.type, 'invalid_request_error');
    assert.match(body.error.message, /did not provide an API key/);
  });

  test('an unknown object is a 404 StripeInvalidRequestError with code resource_missing', async () => {
    await assert.rejects(
      stripe.customers.retrieve('cus_missing'),
      Stripe.errors.StripeInvalidRequestError,
    );
    await rejects(
      stripe.subscriptions.retrieve('sub_missing'),
      'StripeInvalidRequestError',
      404,
      undefined,
      /No such subscription: 'sub_missing'/,
    );
    await rejects(
      stripe.checkout.sessions.retrieve('cs_test_missing'),
      'StripeInvalidRequestError',
      404,
    );
  });

  test('an unknown price or customer in the parameters is a 400 naming the parameter', async () => {
    await rejects(
      session({ line_items: [{ price: 'price_nope', quantity: 1 }] }),
      'StripeInvalidRequestError',
      400,
      'line_items[0][price]',
      /No such price/,
    );
    await rejects(
      session({ customer: 'cus_nope' }),
      'StripeInvalidRequestError',
      400,
      'customer',
      /No such customer/,
    );
  });

  test('missing, wrong and unknown parameters are 400s naming them', async () => {
    await rejects(
      session({ mode: undefined }),
      'StripeInvalidRequestError',
      400,
      'mode',
      /Missing required param: mode/,
    );
    await rejects(session({ mode: 'setup' }), 'StripeInvalidRequestError', 400, 'mode');
    await rejects(
      session({ mode: 'payment' }),
      'StripeInvalidRequestError',
      400,
      'line_items[0][price]',
      /passed a recurring price/,
    );
    await rejects(session({ line_items: [] }), 'StripeInvalidRequestError', 400, 'line_items');
    await rejects(
      session({ line_items: [{ price: 'price_sim_pro' }] }),
      'StripeInvalidRequestError',
      400,
      'line_items[0][quantity]',
    );
    await rejects(
      session({ success_url: 'not a url' }),
      'StripeInvalidRequestError',
      400,
      'success_url',
      /Not a valid URL/,
    );
    await rejects(
      session({ customer_email: 'x@example.com' }),
      'StripeInvalidRequestError',
      400,
      'customer_email',
    );
    await rejects(
      session({ favourite_colour: 'blue' } as never),
      'StripeInvalidRequestError',
      400,
      'favourite_colour',
      /Received unknown parameter/,
    );
    await rejects(
      stripe.subscriptions.update('sub_x', { cancel_at_period_end: 'maybe' as never }),
      'StripeInvalidRequestError',
      400,
      'cancel_at_period_end',
      /Invalid boolean/,
    );
  });

  test('reusing an idempotency key with other parameters is a StripeIdempotencyError', async () => {
    const key = `reuse-${Date.now()}`;
    await stripe.customers.create({ email: 'one@example.com' }, { idempotencyKey: key });
    await assert.rejects(
      stripe.customers.create({ email: 'two@example.com' }, { idempotencyKey: key }),
      Stripe.errors.StripeIdempotencyError,
    );
    assert.equal((await stripe.customers.list({ email: 'two@example.com' })).data.length, 0);
    // ... and with another endpoint
    await assert.rejects(
      stripe.checkout.sessions.create({ mode: 'subscription' }, { idempotencyKey: key }),
      Stripe.errors.StripeIdempotencyError,
    );
  });

  test('a failed request is not remembered: the same key works once the parameters are right', async () => {
    const key = `fix-${Date.now()}`;
    const bad: Stripe.Checkout.SessionCreateParams = {
      mode: 'subscription',
      line_items: [{ price: 'price_nope', quantity: 1 }],
    };
    await assert.rejects(
      stripe.checkout.sessions.create(bad, { idempotencyKey: key }),
      Stripe.errors.StripeInvalidRequestError,
    );
    const created = await stripe.checkout.sessions.create(
      { mode: 'subscription', line_items: [{ price: 'price_sim_pro', quantity: 1 }] },
      { idempotencyKey: key },
    );
    assert.equal(created.status, 'open');
  });

  test('an unknown URL is a 404 in Stripe error shape', async () => {
    const response = await fetch(`${simulator.url}/v1/nothing-here`, {
      headers: { authorization: 'Bearer sk_test_simulator' },
    });
    assert.equal(response.status, 404);
    assert.match(
      (await response.json()).error.message,
      /Unrecognized request URL \(GET: \/v1\/nothing-here\)/,
    );
  });

  test('a JSON body is refused: the API takes form encoding', async () => {
    const response = await fetch(`${simulator.url}/v1/customers`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk_test_simulator', 'content-type': 'application/json' },
      body: '{"email":"j@example.com"}',
    });
    assert.equal(response.status, 400);
    assert.equal((await response.json()).error.type, 'invalid_request_error');
  });

  test('a body that is not valid form encoding is a 400, not a crash', async () => {
    const post = (body: string) =>
      fetch(`${simulator.url}/v1/customers`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer sk_test_simulator',
          'content-type': 'application/x-www-form-urlencoded',
        },
        body,
      });
    for (const body of ['email=%ZZ', 'metadata=x&metadata[a]=b', '[oops]=1']) {
      const response = await post(body);
      assert.equal(response.status, 400, body);
      assert.equal((await response.json()).error.type, 'invalid_request_error');
    }
  });

  test('the lifecycle controls need the key too', async () => {
    const response = await fetch(`${simulator.url}/_sim/subscriptions/sub_x/renew`, {
      method: 'POST',
    });
    assert.equal(response.status, 401);
  });
});
