// What operators watch: /metrics moves with requests, webhook outcomes and checkouts; every
// response carries a request id (the caller's, when sane); /readyz says when migrations are
// missing; CORS is off unless configured; checkout is rate limited per user.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { deliver, eventOf } from '../helpers/stripe-fixtures.ts';

function sample(metrics: string, name: string, labels: string): number {
  const line = metrics
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && labels.split(',').every((label) => l.includes(label)));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

describe(`observability (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      CORS_ALLOWED_ORIGINS: 'https://app.example.test',
      BILLING_CHECKOUT_RATE_LIMIT: '3',
    });
  });
  after(() => t.close());

  const metrics = async () => (await t.app.inject({ method: 'GET', url: '/metrics' })).body;

  test('request durations, webhook outcomes, checkouts and pool use appear in /metrics', async () => {
    const token = await t.token('metrics-user');
    await t.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(token) });
    const event = eventOf('customer.created', { id: 'cus_m', object: 'customer' });
    await deliver(t.app, event);
    await deliver(t.app, event);
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/billing/checkout',
      headers: bearer(token),
      payload: {},
    });
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/billing/checkout',
      headers: bearer(token),
      payload: {},
    });
    const text = await metrics();
    assert.ok(
      sample(
        text,
        'http_request_duration_seconds_count',
        'route="/api/v1/users/me",method="GET",status="200"',
      ) >= 1,
    );
    assert.equal(
      sample(text, 'webhook_events_total', 'type="customer.created",outcome="ignored"'),
      1,
    );
    assert.equal(
      sample(text, 'webhook_events_total', 'type="customer.created",outcome="duplicate"'),
      1,
    );
    assert.equal(sample(text, 'checkout_sessions_total', 'result="created"'), 1);
    assert.equal(sample(text, 'checkout_sessions_total', 'result="reused"'), 1);
    assert.match(text, /^db_pool_connections\{state="total"\} \d+/m);
    assert.match(text, /^process_resident_memory_bytes \d+/m);
  });

  test('a sane x-request-id is echoed, anything else is replaced by a generated one', async () => {
    const echoed = await t.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'trace-123' },
    });
    assert.equal(echoed.headers['x-request-id'], 'trace-123');
    const replaced = await t.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'bad id\twith <junk>' },
    });
    assert.match(String(replaced.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  });

  test('/readyz is 503 while a migration is missing, 200 once it is back', async () => {
    const db = t.composition.db;
    const [row] = await db.query<{ version: string }>(
      'SELECT version FROM schema_migrations ORDER BY version DESC LIMIT 1',
    );
    await db.query('DELETE FROM schema_migrations WHERE version = $1', [row!.version]);
    try {
      const response = await t.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(response.statusCode, 503);
    } finally {
      await db.query('INSERT INTO schema_migrations (version) VALUES ($1)', [row!.version]);
    }
    assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
  });

  test('CORS answers only the configured origins', async () => {
    const allowed = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/users/me',
      headers: { origin: 'https://app.example.test', 'access-control-request-method': 'GET' },
    });
    assert.equal(allowed.headers['access-control-allow-origin'], 'https://app.example.test');
    const other = await t.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(other.headers['access-control-allow-origin'], undefined);
  });

  test('checkout is rate limited per user with 429 and Retry-After', async () => {
    const token = await t.token('hasty-user');
    const statuses: number[] = [];
    let limited;
    for (let i = 0; i < 4; i++) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/billing/checkout',
        headers: bearer(token),
        payload: {},
      });
      statuses.push(response.statusCode);
      if (response.statusCode === 429) limited = response;
    }
    assert.deepEqual(statuses, [200, 200, 200, 429]);
    assert.ok(Number(limited!.headers['retry-after']) > 0);
    assert.equal(typeof limited!.json().detail, 'string');
    const someoneElse = await t.app.inject({
      method: 'POST',
      url: '/api/v1/billing/checkout',
      headers: bearer(await t.token('patient-user')),
      payload: {},
    });
    assert.equal(someoneElse.statusCode, 200);
  });
});

describe('CORS by default', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  test('is off: no Access-Control-Allow-Origin for any origin', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { origin: 'http://127.0.0.1:8000' },
    });
    assert.equal(response.headers['access-control-allow-origin'], undefined);
  });
});
