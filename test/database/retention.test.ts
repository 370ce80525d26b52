// Retention: the service deletes, in batches, the records of events created longer ago than
// WEBHOOK_EVENT_RETENTION_DAYS (35), the failure records older than
// WEBHOOK_FAILURE_RETENTION_DAYS (30), the per-user limits' expired windows and credit spends' keys
// older than 7 days, and keeps the rest.
// An event older than the retention delivered anyway is processed again, and the ordering guard
// keeps the newer state it finds.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEventLedger } from '../../src/adapters/database/event-ledger.ts';
import { forgetExpired } from '../../src/domain/schedule/retention.ts';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { deliver, eventOf, subscriptionObject } from '../helpers/stripe-fixtures.ts';

const DAY = 86_400;
const now = () => Math.floor(Date.now() / 1000);

describe(`retention (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const count = async (sql: string) =>
    (await t.composition.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`))[0]!.n;

  test('old records go, in batches of 1,000, recent ones stay; expired limit windows go', async () => {
    const { db } = t.composition;
    await db.exec(`
      INSERT INTO webhook_events (id, type, livemode, outcome, event_created)
        SELECT 'evt_old_' || i, 'invoice.paid', false, 'processed', now() - interval '40 days'
        FROM generate_series(1, 2500) AS i;
      INSERT INTO webhook_events (id, type, livemode, outcome, event_created) VALUES
        ('evt_kept_34_days', 'invoice.paid', false, 'processed', now() - interval '34 days'),
        ('evt_kept_today', 'invoice.paid', false, 'processed', now());
      INSERT INTO webhook_failures (event_id, type, error, failed_at) VALUES
        ('evt_a', 'invoice.paid', 'Error: x', now() - interval '31 days'),
        ('evt_b', 'invoice.paid', 'Error: x', now() - interval '29 days');
      INSERT INTO rate_limit_counts (key, hits, window_end) VALUES
        ('checkout:gone', 3, now() - interval '1 second'),
        ('checkout:running', 3, now() + interval '30 seconds');
      INSERT INTO credit_spends (idempotency_key, subject_type, subject_id, amount, status, answer,
        created_at) VALUES
        ('spend-8-days', 'user', gen_random_uuid(), 1, 200, '{"balance":1}', now() - interval '8 days'),
        ('spend-6-days', 'user', gen_random_uuid(), 1, 200, '{"balance":1}', now() - interval '6 days');`);
    await t.composition.jobs.retention.look();
    assert.deepEqual(
      (await db.query<{ id: string }>('SELECT id FROM webhook_events ORDER BY id')).map(
        (r) => r.id,
      ),
      ['evt_kept_34_days', 'evt_kept_today'],
    );
    assert.equal(await count('webhook_failures'), 1);
    assert.deepEqual(
      (await db.query<{ key: string }>('SELECT key FROM rate_limit_counts')).map((r) => r.key),
      ['checkout:running'],
    );
    const [lease] = await db.query<{ result: unknown }>(
      "SELECT result FROM job_leases WHERE job = 'retention'",
    );
    const result = typeof lease!.result === 'string' ? JSON.parse(lease!.result) : lease!.result;
    assert.deepEqual(result, {
      events: 2500,
      failures: 1,
      limits: 1,
      spendKeys: 1,
      outboundEvents: 0,
    });
    // A spend's key answers its repeats for 7 days (contract section 14), then goes.
    assert.deepEqual(
      (await db.query<{ k: string }>('SELECT idempotency_key AS k FROM credit_spends')).map(
        (r) => r.k,
      ),
      ['spend-6-days'],
    );
    // Not due again for an hour, on this instance or any other.
    await db.exec(`INSERT INTO webhook_events (id, type, livemode, outcome, event_created)
      VALUES ('evt_old_again', 'invoice.paid', false, 'processed', now() - interval '40 days')`);
    await t.composition.jobs.retention.look();
    assert.equal(await count("webhook_events WHERE id = 'evt_old_again'"), 1);
  });

  test('a late event older than the retention is processed again and does not overwrite newer state', async () => {
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/v1/users/me',
      headers: bearer(await t.token('retained')),
    });
    const subscription = subscriptionObject({
      metadata: { user_id: me.json().id },
      created: now() - 41 * DAY,
    });
    const created = eventOf('customer.subscription.created', subscription, {
      created: now() - 40 * DAY,
    });
    const canceled = eventOf(
      'customer.subscription.updated',
      { ...subscription, status: 'canceled' },
      { created: now() - 39 * DAY },
    );
    for (const event of [created, canceled])
      assert.deepEqual((await deliver(t.app, event)).json(), { status: 'processed' });
    const gone = await forgetExpired(
      {
        ledger: createEventLedger(t.composition.db, 'dropped'),
        limits: null,
        metrics: t.composition.services.metrics,
      },
      t.config.retentionDays,
      new AbortController().signal,
    );
    assert.ok(gone.events >= 2);
    assert.equal(await count(`webhook_events WHERE id IN ('${created.id}', '${canceled.id}')`), 0);
    // Events the provider sends long after: one never delivered before, and one whose record is gone.
    const older = eventOf(
      'customer.subscription.updated',
      { ...subscription, cancel_at_period_end: true },
      { created: now() - 41 * DAY + 60 },
    );
    assert.deepEqual((await deliver(t.app, older)).json(), { status: 'processed' });
    const again = (await deliver(t.app, created)).json().status;
    assert.ok(['processed', 'duplicate'].includes(again), again);
    const [row] = await t.composition.db.query<{ status: string; cancel_at_period_end: boolean }>(
      'SELECT status, cancel_at_period_end FROM subscriptions WHERE id = $1',
      [subscription.id],
    );
    assert.deepEqual(row, { status: 'canceled', cancel_at_period_end: false });
  });
});
