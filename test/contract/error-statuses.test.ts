// Every status an operation can answer is one /openapi.json lists for it, with the body it
// describes: each is provoked here through app.inject, whose checker (buildTestApp) fails the
// request otherwise. Faults are injected where production meets them: the database client throws
// what the PostgreSQL adapter throws when the server is gone (or a statement fails), the payment
// provider what the Stripe adapter throws when Stripe cannot be reached.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DatabaseUnavailableError } from '../../src/adapters/database/sql-client.ts';
import { DomainError } from '../../src/domain/errors.ts';
import type { PaymentsProvider } from '../../src/domain/ports/payments-provider.ts';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel, onceInTheSuite } from '../helpers/database.ts';
import { deliver, eventOf, subscriptionObject } from '../helpers/stripe-fixtures.ts';

type Fault = 'database down' | 'statement fails' | 'provider down';

describe(`every answer is documented (${databaseLabel})`, onceInTheSuite, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ BILLING_CHECKOUT_RATE_LIMIT: '2' });
  });
  after(() => t.close());

  /** Runs `work` while the database or the provider fails, then puts them back. */
  async function during<T>(fault: Fault, work: () => Promise<T>): Promise<T> {
    const target = (fault === 'provider down'
      ? t.composition.payments
      : t.composition.db) as unknown as Record<string, unknown>;
    const methods =
      fault === 'provider down'
        ? ([
            'createCustomer',
            'retrieveSubscription',
            'createPortalSession',
          ] satisfies (keyof PaymentsProvider)[])
        : ['query', 'transaction'];
    const failure = () =>
      fault === 'database down'
        ? new DatabaseUnavailableError(new Error('connect ECONNREFUSED'))
        : fault === 'statement fails'
          ? new Error('relation "users" does not exist')
          : new DomainError('payments_unavailable', 'Payment provider unavailable');
    const saved = methods.map((name) => [name, target[name]] as const);
    for (const name of methods) target[name] = async () => Promise.reject(failure());
    try {
      return await work();
    } finally {
      for (const [name, original] of saved) target[name] = original;
    }
  }

  const me = async (sub: string) =>
    t.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(await t.token(sub)) });
  const checkout = async (
    sub: string,
    payload: string = '{}',
    headers: Record<string, string> = { 'content-type': 'application/json' },
  ) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/billing/checkout',
      headers: { ...bearer(await t.token(sub)), ...headers },
      payload,
    });
  const event = (subscription = subscriptionObject()) =>
    eventOf('customer.subscription.created', subscription);

  describe('GET /api/v1/users/me', () => {
    test('401 without a token and with a bad one', async () => {
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/api/v1/users/me' })).statusCode,
        401,
      );
      assert.equal(
        (
          await t.app.inject({
            method: 'GET',
            url: '/api/v1/users/me',
            headers: bearer('not.a.token'),
          })
        ).statusCode,
        401,
      );
    });
    test('503 while the database is down', async () => {
      assert.equal((await during('database down', () => me('status-me'))).statusCode, 503);
    });
    test('500 when a statement fails', async () => {
      assert.equal((await during('statement fails', () => me('status-me'))).statusCode, 500);
    });
  });

  describe('POST /api/v1/billing/checkout', () => {
    test('400 when the body does not match its Content-Length', async () => {
      assert.equal(
        (
          await checkout('status-400', '{"success_url":1}', {
            'content-type': 'application/json',
            'content-length': '2',
          })
        ).statusCode,
        400,
      );
    });
    test('401 without a token', async () => {
      assert.equal(
        (await t.app.inject({ method: 'POST', url: '/api/v1/billing/checkout', payload: {} }))
          .statusCode,
        401,
      );
    });
    test('409 with an active subscription', async () => {
      const { id } = (await me('status-409')).json();
      await deliver(t.app, event(subscriptionObject({ metadata: { user_id: id } })));
      assert.equal((await checkout('status-409')).statusCode, 409);
    });
    test('413 for a body over the limit', async () => {
      assert.equal(
        (await checkout('status-413', JSON.stringify({ success_url: 'x'.repeat(70_000) })))
          .statusCode,
        413,
      );
    });
    test('415 for a body that is not JSON', async () => {
      assert.equal(
        (
          await checkout('status-415', 'success_url=x', {
            'content-type': 'application/x-www-form-urlencoded',
          })
        ).statusCode,
        415,
      );
    });
    test('422 for an invalid body', async () => {
      assert.equal((await checkout('status-422', '{"success_url":5}')).statusCode, 422);
    });
    test('429 over the per-user rate limit', async () => {
      const statuses = [];
      for (let i = 0; i < 3; i += 1) statuses.push((await checkout('status-429')).statusCode);
      assert.deepEqual(statuses, [200, 200, 429]);
    });
    test('502 while the payment provider is down', async () => {
      assert.equal((await during('provider down', () => checkout('status-502'))).statusCode, 502);
    });
    test('503 while the database is down', async () => {
      assert.equal((await during('database down', () => checkout('status-503'))).statusCode, 503);
    });
    test('500 when a statement fails', async () => {
      assert.equal((await during('statement fails', () => checkout('status-500'))).statusCode, 500);
    });
  });

  describe('GET /api/v1/billing/subscription', () => {
    const summary = async (sub: string) =>
      t.app.inject({
        method: 'GET',
        url: '/api/v1/billing/subscription',
        headers: bearer(await t.token(sub)),
      });
    test('200, and 401 without a token', async () => {
      assert.equal((await summary('status-summary')).statusCode, 200);
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/api/v1/billing/subscription' })).statusCode,
        401,
      );
    });
    test('503 while the database is down', async () => {
      assert.equal(
        (await during('database down', () => summary('status-summary'))).statusCode,
        503,
      );
    });
    test('500 when a statement fails', async () => {
      assert.equal(
        (await during('statement fails', () => summary('status-summary'))).statusCode,
        500,
      );
    });
  });

  describe('POST /api/v1/billing/portal', () => {
    const portal = async (
      sub: string,
      payload: string = '{}',
      headers: Record<string, string> = { 'content-type': 'application/json' },
    ) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/billing/portal',
        headers: { ...bearer(await t.token(sub)), ...headers },
        payload,
      });
    /** A user with a provider customer, as after a first checkout. */
    const customer = async (sub: string) => {
      const user = await t.composition.store.users.upsertByIdpId(sub, `${sub}@example.com`);
      await t.composition.store.users.linkCustomer(
        user.id,
        await t.composition.payments.createCustomer(
          { owner: { type: 'user', id: user.id }, email: user.email },
          `customer:${user.id}`,
        ),
      );
      return sub;
    };
    test('200 for a user with a customer', async () => {
      assert.equal((await portal(await customer('portal-200'))).statusCode, 200);
    });
    test('400 when the body does not match its Content-Length', async () => {
      assert.equal(
        (
          await portal('portal-400', '{"return_url":1}', {
            'content-type': 'application/json',
            'content-length': '2',
          })
        ).statusCode,
        400,
      );
    });
    test('401 without a token', async () => {
      assert.equal(
        (await t.app.inject({ method: 'POST', url: '/api/v1/billing/portal', payload: {} }))
          .statusCode,
        401,
      );
    });
    test('409 for a user without a customer', async () => {
      assert.equal((await portal('portal-409')).statusCode, 409);
    });
    test('413 for a body over the limit', async () => {
      assert.equal(
        (await portal('portal-413', JSON.stringify({ return_url: 'x'.repeat(70_000) }))).statusCode,
        413,
      );
    });
    test('415 for a body that is not JSON', async () => {
      assert.equal(
        (
          await portal('portal-415', 'return_url=x', {
            'content-type': 'application/x-www-form-urlencoded',
          })
        ).statusCode,
        415,
      );
    });
    test('422 for an invalid body', async () => {
      assert.equal((await portal('portal-422', '{"return_url":5}')).statusCode, 422);
    });
    test('429 over the per-user rate limit, counted apart from checkout', async () => {
      const sub = await customer('portal-429');
      assert.equal((await checkout(sub)).statusCode, 200);
      const statuses = [];
      for (let i = 0; i < 3; i += 1) statuses.push((await portal(sub)).statusCode);
      assert.deepEqual(statuses, [200, 200, 429]);
    });
    test('502 while the payment provider is down', async () => {
      const sub = await customer('portal-502');
      assert.equal((await during('provider down', () => portal(sub))).statusCode, 502);
    });
    test('503 while the database is down', async () => {
      assert.equal((await during('database down', () => portal('portal-503'))).statusCode, 503);
    });
  });

  describe('POST /api/v1/webhooks/payments', () => {
    test('400 without a valid signature', async () => {
      assert.equal(
        (
          await t.app.inject({
            method: 'POST',
            url: '/api/v1/webhooks/payments',
            headers: { 'content-type': 'application/json' },
            payload: '{}',
          })
        ).statusCode,
        400,
      );
    });
    test('413 for a body over the limit', async () => {
      assert.equal(
        (
          await t.app.inject({
            method: 'POST',
            url: '/api/v1/webhooks/payments',
            headers: { 'content-type': 'application/json' },
            payload: 'x'.repeat(1024 * 1024 + 1),
          })
        ).statusCode,
        413,
      );
    });
    test('502 when the subscription cannot be re-read from the provider', async () => {
      assert.equal((await during('provider down', () => deliver(t.app, event()))).statusCode, 502);
    });
    test('503 while the database is down', async () => {
      assert.equal((await during('database down', () => deliver(t.app, event()))).statusCode, 503);
    });
    test('500 when a statement fails', async () => {
      assert.equal(
        (await during('statement fails', () => deliver(t.app, event()))).statusCode,
        500,
      );
    });
  });
});
