// Checkout input errors in the exact FastAPI/Pydantic v2 shape, redirect tricks refused at the
// right field, 401 before anything else, and a provider outage answered with 502.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { REFUSED_URLS } from '../helpers/refused-urls.ts';

describe(`checkout errors (${databaseLabel})`, () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    // One user sends every request here: the per-user rate limit is raised out of the way.
    t = await buildTestApp({
      APP_URL: 'https://app.example.test',
      BILLING_CHECKOUT_RATE_LIMIT: '1000',
    });
    token = await t.token('carl');
  });
  after(() => t.close());

  const post = (
    payload: string | undefined,
    headers: Record<string, string> = { 'content-type': 'application/json' },
  ) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/billing/checkout',
      headers: { ...bearer(token), ...headers },
      ...(payload === undefined ? {} : { payload }),
    });

  test('no body', async () => {
    const response = await post(undefined, {});
    assert.equal(response.statusCode, 422);
    assert.deepEqual(response.json(), {
      detail: [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }],
    });
  });

  test('body not JSON', async () => {
    const response = await post('{"success_url": ');
    assert.equal(response.statusCode, 422);
    const [item] = response.json().detail;
    assert.equal(item.type, 'json_invalid');
    assert.equal(item.loc[0], 'body');
    assert.equal(typeof item.loc[1], 'number');
    assert.equal(item.msg, 'JSON decode error');
  });

  test('array body', async () => {
    const response = await post('[]');
    assert.equal(response.statusCode, 422);
    assert.deepEqual(response.json().detail[0].type, 'model_attributes_type');
    assert.deepEqual(response.json().detail[0].loc, ['body']);
  });

  test('success_url of the wrong type', async () => {
    const response = await post('{"success_url": 5}');
    assert.equal(response.statusCode, 422);
    assert.deepEqual(response.json(), {
      detail: [
        {
          type: 'string_type',
          loc: ['body', 'success_url'],
          msg: 'Input should be a valid string',
          input: 5,
        },
      ],
    });
  });

  test('success_url nested 10,000 levels deep: the 422 item in full, its input left out', async () => {
    for (const deep of [
      '['.repeat(10_000) + ']'.repeat(10_000),
      '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000),
    ]) {
      const response = await post(`{"success_url": ${deep}}`);
      assert.equal(response.statusCode, 422);
      assert.deepEqual(response.json(), {
        detail: [
          {
            type: 'string_type',
            loc: ['body', 'success_url'],
            msg: 'Input should be a valid string',
          },
        ],
      });
    }
    const shallow = await post('{"success_url": [[["x"]]]}');
    assert.deepEqual(shallow.json().detail[0].input, [[['x']]], 'a shallow input is still echoed');
  });

  for (const field of ['success_url', 'cancel_url']) {
    for (const url of REFUSED_URLS) {
      test(`${field} ${JSON.stringify(url.slice(0, 50))} is refused`, async () => {
        const response = await post(JSON.stringify({ [field]: url }));
        assert.equal(response.statusCode, 422);
        const [item] = response.json().detail;
        assert.deepEqual(item.loc, ['body', field]);
        assert.equal(item.type, 'url_not_allowed');
        assert.equal(typeof item.msg, 'string');
      });
    }
  }

  test('an allowed URL with a path, query and placeholder is accepted', async () => {
    const response = await post(
      JSON.stringify({ success_url: 'https://app.example.test/thanks?s={CHECKOUT_SESSION_ID}' }),
    );
    assert.equal(response.statusCode, 200);
  });

  test('without a token: 401 even with a bad body, and nothing stored', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/billing/checkout',
      headers: { 'content-type': 'application/json' },
      payload: '[',
    });
    assert.equal(response.statusCode, 401);
    assert.deepEqual(response.json(), { detail: 'Not authenticated' });
    assert.equal(response.headers['www-authenticate'], 'Bearer');
  });
});

describe(`checkout with the provider down (${databaseLabel})`, () => {
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
    const started = Date.now();
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/billing/checkout',
      headers: bearer(await t.token('dora')),
      payload: {},
    });
    assert.equal(response.statusCode, 502);
    assert.deepEqual(response.json(), { detail: 'Payment provider unavailable' });
    assert.ok(!response.body.includes('sk_test_unreachable'));
    assert.ok(Date.now() - started < 15_000);
    const [row] = await t.composition.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM checkout_sessions',
    );
    assert.equal(row!.n, 0);
  });
});
