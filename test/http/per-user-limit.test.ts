// The per-user limits are counted in the database by key alone: an operation's API route and its
// development form share one count (a user cannot double the limit by switching between them),
// the count survives a restart, and each check costs one statement.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createRateLimitCounts } from '../../src/adapters/database/rate-limit-counts.ts';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe(`per-user limits in the database (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ BILLING_CHECKOUT_RATE_LIMIT: '2' });
  });
  after(() => t.close());

  test("an operation's API route and its development form share one count", async () => {
    const token = await t.token('shared-count');
    const api = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/billing/checkout',
        headers: bearer(token),
        payload: {},
      });
    const form = () =>
      t.app.inject({
        method: 'POST',
        url: '/billing/checkout',
        headers: FORM,
        payload: new URLSearchParams({ token }).toString(),
      });
    assert.equal((await api()).statusCode, 200);
    assert.equal((await form()).statusCode, 303);
    const [overApi, overForm] = [await api(), await form()];
    assert.equal(overApi.statusCode, 429);
    assert.match(String(overForm.headers['set-cookie']), /billing_notice=error:Too%20many%20tries/);
    assert.ok(Number(overApi.headers['retry-after']) > 0);
    assert.ok(Number(overApi.headers['retry-after']) <= 60);
    const [row] = await t.composition.db.query<{ hits: number }>(
      'SELECT hits FROM rate_limit_counts WHERE key = $1',
      ['checkout:shared-count'],
    );
    assert.equal(row!.hits, 4);
  });

  test('a window ends: the count starts again; one statement counts a hit', async () => {
    const counts = createRateLimitCounts(t.composition.db);
    assert.deepEqual(
      [await counts.hit('test:window', 300), await counts.hit('test:window', 300)].map(
        (h) => h.hits,
      ),
      [1, 2],
    );
    const second = await counts.hit('test:window', 300);
    assert.ok(second.msLeft > 0 && second.msLeft <= 300, String(second.msLeft));
    await new Promise((resolve) => setTimeout(resolve, 350));
    assert.equal((await counts.hit('test:window', 300)).hits, 1);
    // One statement per hit: the store's query, counted at the client.
    let statements = 0;
    const counting = createRateLimitCounts({
      query: (sql, params) => {
        statements += 1;
        return t.composition.db.query(sql, params);
      },
      exec: (sql) => t.composition.db.exec(sql),
    });
    await counting.hit('test:statements', 60_000);
    await counting.hit('test:statements', 60_000);
    assert.equal(statements, 2);
  });
});
