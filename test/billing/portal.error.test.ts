// POST /api/v1/billing/portal refusals (CONTRACT §8): 401 before anything else, 409 while the user
// has no provider customer, return_url under the same rules and 422 shapes as success_url, and a
// provider outage answered with 502 naming no secret.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { REFUSED_URLS } from '../helpers/refused-urls.ts';

describe(`portal errors (${databaseLabel})`, () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await buildTestApp({
      APP_URL: 'https://app.example.test',
      BILLING_CHECKOUT_RATE_LIMIT: '1000',
    });
    token = await t.token('polly');
    // Polly has a provider customer (a checkout made it), so only her input can be wrong.
    const checkout = await t.app.inject({
      method: 'POST',
      url: '/api/v1/billing/checkout',
      headers: bearer(token),
      payload: {},
    });
    assert.equal(checkout.statusCode, 200);
  });
  after(() => t.close());

  const post = (
    payload: string | undefined,
    headers: Record<string, string> = { 'content-type': 'application/json' },
    auth: Record<string, string> = bearer(token),
  ) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/billing/portal',
      headers: { ...auth, ...headers },
      ...(payload === undefined ? {} : { payload }),
    });

  test('without a token: 401 Not authenticated, even with a bad body', async () => {
    const response = await post('[', { 'content-type': 'application/json' }, {});
    assert.equal(response.statusCode, 401);
    assert.deepEqual(response.json(), { detail: 'Not authenticated' });
    assert.equal(response.headers['www-authenticate'], 'Bearer');
  });

  test('with a bad token: 401 Invalid token', async () => {
    const response = await post(
      '{}',
      { 'content-type': 'application/json' },
      bearer('not.a.token'),
    );
    assert.equal(response.statusCode, 401);
    assert.deepEqual(response.json(), { detail: 'Invalid token' });
  });

  test('a user who never checked out: 409 saying there is nothing to manage yet', async () => {
    const response = await post(
      '{}',
      { 'content-type': 'application/json' },
      bearer(await t.token('newcomer')),
    );
    assert.equal(response.statusCode, 409);
    assert.match(response.json().detail, /nothing to manage yet/);
  });

  test('no body, a body not JSON, an array: the contract 422 shapes', async () => {
    assert.deepEqual((await post(undefined, {})).json(), {
      detail: [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }],
    });
    const [decode] = (await post('{"return_url": ')).json().detail;
    assert.equal(decode.type, 'json_invalid');
    assert.deepEqual((await post('[]')).json().detail[0].loc, ['body']);
  });

  test('return_url of the wrong type', async () => {
    const response = await post('{"return_url": 5}');
    assert.equal(response.statusCode, 422);
    assert.deepEqual(response.json(), {
      detail: [
        {
          type: 'string_type',
          loc: ['body', 'return_url'],
          msg: 'Input should be a valid string',
          input: 5,
        },
      ],
    });
  });

  for (const url of REFUSED_URLS) {
    test(`return_url ${JSON.stringify(url.slice(0, 50))} is refused`, async () => {
      const response = await post(JSON.stringify({ return_url: url }));
      assert.equal(response.statusCode, 422);
      const [item] = response.json().detail;
      assert.deepEqual(item.loc, ['body', 'return_url']);
      assert.equal(item.type, 'url_not_allowed');
      assert.equal(item.input, url);
      assert.equal(typeof item.msg, 'string');
    });
  }
});

describe(`portal with the provider down (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      PAYMENTS_API_KEY: 'sk_test_unreachable',
      PAYMENTS_API_BASE: 'http://127.0.0.1:9',
      PAYMENTS_WEBHOOK_SECRET: 'whsec_x',
      BILLING_PRICES: 'pro=price_1',
    });
  });
  after(() => t.close());

  test('answers 502 with a detail that names no secret', async () => {
    const token = await t.token('quinn');
    const user = await t.composition.store.users.upsertByIdpId('quinn', 'quinn@example.com');
    await t.composition.store.users.linkCustomer(user.id, 'cus_quinn');
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/billing/portal',
      headers: bearer(token),
      payload: {},
    });
    assert.equal(response.statusCode, 502);
    assert.deepEqual(response.json(), { detail: 'Payment provider unavailable' });
    assert.ok(!response.body.includes('sk_test_unreachable'));
  });
});
