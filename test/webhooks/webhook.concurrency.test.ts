// Concurrent deliveries of one event apply its effects once: exactly one `processed`, the rest
// `duplicate`, never 500. Effects are counted by a trigger that logs every write to subscriptions.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { deliver, eventOf, subscriptionObject } from '../helpers/stripe-fixtures.ts';
import { SUBSCRIPTION_WRITE_AUDIT } from '../helpers/write-audit.ts';

describe(`webhook concurrency (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
    await t.composition.db.exec(SUBSCRIPTION_WRITE_AUDIT);
  });
  after(() => t.close());

  test('20 concurrent deliveries of one event: one processed, 19 duplicates, one write', async () => {
    const user = (
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/users/me',
        headers: bearer(await t.token('sam')),
      })
    ).json();
    const subscription = subscriptionObject({ metadata: { user_id: user.id } });
    const event = eventOf('customer.subscription.created', subscription);
    const started = performance.now();
    const responses = await Promise.all(Array.from({ length: 20 }, () => deliver(t.app, event)));
    const seconds = (performance.now() - started) / 1000;
    assert.deepEqual([...new Set(responses.map((r) => r.statusCode))], [200]);
    const outcomes = responses.map((r) => r.json().status).sort();
    assert.deepEqual(outcomes, ['processed', ...Array(19).fill('duplicate')].sort());
    const writes = await t.composition.db.query(
      'SELECT 1 FROM subscription_writes WHERE subscription_id = $1',
      [subscription.id],
    );
    assert.equal(writes.length, 1);
    assert.equal(
      (await t.composition.db.query('SELECT 1 FROM webhook_events WHERE id = $1', [event.id]))
        .length,
      1,
    );
    console.log(
      `# ${databaseLabel}: 20 concurrent deliveries of one event in ${seconds.toFixed(3)} s (${(20 / seconds).toFixed(0)} deliveries/s)`,
    );
  });

  test('100 distinct events delivered 5 at a time each: every event recorded once, applied once', async () => {
    const user = (
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/users/me',
        headers: bearer(await t.token('tess')),
      })
    ).json();
    const subscriptions = Array.from({ length: 100 }, () =>
      subscriptionObject({ metadata: { user_id: user.id } }),
    );
    const events = subscriptions.map((subscription) =>
      eventOf('customer.subscription.created', subscription),
    );
    const started = performance.now();
    const responses = await Promise.all(
      events.flatMap((event) => Array.from({ length: 5 }, () => deliver(t.app, event))),
    );
    const seconds = (performance.now() - started) / 1000;
    assert.deepEqual([...new Set(responses.map((r) => r.statusCode))], [200]);
    assert.equal(responses.filter((r) => r.json().status === 'processed').length, 100);
    const [row] = await t.composition.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_events WHERE id = ANY($1)',
      [events.map((event) => event.id)],
    );
    assert.equal(row!.n, 100);
    const [written] = await t.composition.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM subscription_writes WHERE subscription_id = ANY($1)',
      [subscriptions.map((subscription) => subscription.id)],
    );
    assert.equal(written!.n, 100);
    console.log(
      `# ${databaseLabel}: 500 deliveries of 100 events in ${seconds.toFixed(2)} s (${(100 / seconds).toFixed(0)} events/s processed)`,
    );
  });
});
