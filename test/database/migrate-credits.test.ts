// Migration 016 (credits) on a database an earlier release filled: every row of every table is kept
// as it was (users, organisations and their members, subscriptions, checkout sessions, webhook
// events and failures, outbound events and deliveries, pending changes, seats, what each subject
// was told, job leases, rate-limit counts); the credit tables start empty, and a user or an
// organisation that was there before gets a balance and entries as a new one does.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { migrate } from '../../src/adapters/database/migrate.ts';
import { creditsRepository } from '../../src/adapters/database/repositories/credits.ts';
import type { Database } from '../../src/adapters/database/sql-client.ts';
import { databaseLabel, migratedBefore, type OpenTestDatabase } from '../helpers/database.ts';

const ANN = '00000000-0000-4000-8000-000000000001';
const BOB = '00000000-0000-4000-8000-000000000002';
const ACME = '00000000-0000-4000-8000-0000000000aa';

const FILL = `
  INSERT INTO users (id, idp_id, email, plan, payments_customer_id, created_at, updated_at,
      first_subscription_at) VALUES
    ('${ANN}', 'ann', 'ann@example.com', 'pro', 'cus_ann', '2026-01-01T00:00:00Z',
      '2026-01-02T00:00:00Z', '2026-01-01T00:00:00Z'),
    ('${BOB}', 'bob', 'bob@example.com', NULL, NULL, '2026-02-01T00:00:00Z',
      '2026-02-01T00:00:00Z', NULL);
  INSERT INTO organizations (id, issuer, idp_org_id, plan, payments_customer_id, created_at,
      updated_at) VALUES
    ('${ACME}', 'development', 'acme', 'team', 'cus_acme', '2026-03-01T00:00:00Z',
      '2026-03-01T00:00:00Z');
  INSERT INTO memberships (organization_id, user_id, created_at, last_seen_at) VALUES
    ('${ACME}', '${BOB}', '2026-03-01T00:00:00Z', '2026-03-05T00:00:00Z');
  INSERT INTO subscriptions (id, user_id, customer_id, status, price_id, cancel_at_period_end,
      current_period_end, created_at, as_of, updated_at, revision, trial_end, item_id, quantity)
    VALUES ('sub_ann', '${ANN}', 'cus_ann', 'active', 'price_sim_pro', false,
      '2026-12-01T00:00:00Z', '2026-01-01T00:00:00Z', 1767225600, '2026-11-01T00:00:00Z', 4,
      NULL, 'si_ann', 1);
  INSERT INTO subscriptions (id, organization_id, customer_id, status, price_id,
      cancel_at_period_end, current_period_end, created_at, as_of, updated_at, item_id, quantity,
      cancel_at) VALUES ('sub_acme', '${ACME}', 'cus_acme', 'trialing', 'price_sim_team', true,
      '2026-12-15T00:00:00Z', '2026-03-01T00:00:00Z', 1772323200, '2026-03-01T00:00:00Z',
      'si_acme', 7, '2026-12-15T00:00:00Z');
  INSERT INTO checkout_sessions (id, user_id, url, price_id, success_url, cancel_url, status,
      expires_at, created_at, trial_days) VALUES
    ('cs_bob', '${BOB}', 'https://checkout/cs_bob', 'price_sim_pro', 'https://a', 'https://b',
      'open', '2026-12-02T00:00:00Z', '2026-12-01T00:00:00Z', 14);
  INSERT INTO checkout_sessions (id, organization_id, url, price_id, success_url, cancel_url,
      status, expires_at, created_at, quantity) VALUES
    ('cs_acme', '${ACME}', 'https://checkout/cs_acme', 'price_sim_team', 'https://a', 'https://b',
      'complete', '2026-03-02T00:00:00Z', '2026-03-01T00:00:00Z', 7);
  INSERT INTO webhook_events (id, type, livemode, outcome, event_created, processed_at) VALUES
    ('evt_1', 'customer.subscription.created', false, 'applied', '2026-01-01T00:00:00Z',
      '2026-01-01T00:00:01Z'),
    ('evt_2', 'invoice.paid', false, 'ignored', '2026-01-01T00:00:02Z', '2026-01-01T00:00:03Z');
  INSERT INTO webhook_failures (event_id, type, error, failed_at) VALUES
    ('evt_3', 'invoice.paid', 'boom', '2026-01-01T00:00:04Z');
  INSERT INTO outbound_events (id, subject_type, subject_id, type, body, state, attempts,
      created_at, retry_from, next_attempt_at, settled_at) VALUES
    ('msg_1', 'user', '${ANN}', 'tier.changed', '{"tier":"pro"}', 'delivered', 1,
      '2026-01-01T00:00:01Z', '2026-01-01T00:00:01Z', '2026-01-01T00:00:01Z',
      '2026-01-01T00:00:02Z'),
    ('msg_2', 'organization', '${ACME}', 'seats.changed', '{"seats":7}', 'pending', 0,
      '2026-03-01T00:00:01Z', '2026-03-01T00:00:01Z', '2026-03-01T00:00:01Z', NULL);
  INSERT INTO outbound_deliveries (event_id, attempt, attempted_at, status, duration_ms, answer)
    VALUES ('msg_1', 1, '2026-01-01T00:00:02Z', 204, 12, '');
  INSERT INTO pending_changes (subscription_id, schedule_id, price_id, effective_at, as_of, rank)
    VALUES ('sub_ann', 'sub_sched_1', 'price_sim_team', '2026-12-01T00:00:00Z', 1767225600, 1);
  INSERT INTO organization_seats (organization_id, reported, reported_as_of, desired, revision,
      pushed_revision, changes, changed_at, burst_pushes) VALUES
    ('${ACME}', 7, '2026-03-01T00:00:00Z', 7, 2, 2, 3, '2026-03-01T00:00:00Z', 1)
    ON CONFLICT (organization_id) DO UPDATE SET reported = excluded.reported,
      reported_as_of = excluded.reported_as_of, desired = excluded.desired,
      revision = excluded.revision, pushed_revision = excluded.pushed_revision,
      changes = excluded.changes, changed_at = excluded.changed_at,
      burst_pushes = excluded.burst_pushes;
  INSERT INTO announced_subjects (subject_type, subject_id, tier, seats, pending_price_id,
      pending_effective_at) VALUES
    ('user', '${ANN}', 'pro', NULL, 'price_sim_team', '2026-12-01T00:00:00Z'),
    ('organization', '${ACME}', 'team', 7, NULL, NULL);
  INSERT INTO job_leases (job, holder, held_until, started_at, completed_at, result) VALUES
    ('retention', 'host-1', '2026-01-01T01:00:00Z', '2026-01-01T00:00:00Z',
      '2026-01-01T00:00:05Z', '{"deleted": 3}');
  INSERT INTO rate_limit_counts (key, hits, window_end) VALUES
    ('checkout:ann', 2, '2026-01-01T00:01:00Z');`;

/** Each table's columns, in their order. */
async function columnsOf(db: Database, tables: string[]): Promise<Record<string, string[]>> {
  const columns: Record<string, string[]> = {};
  for (const table of tables)
    columns[table] = (
      await db.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns
         WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
        [table],
      )
    ).map((r) => r.column_name);
  return columns;
}

/**
 * Every table's rows in the columns given, each as JSON text, sorted: what a migration must keep
 * (a later migration may add a column beside them).
 */
async function everyRow(
  db: Database,
  columns: Record<string, string[]>,
): Promise<Record<string, string[]>> {
  const rows: Record<string, string[]> = {};
  for (const [table, names] of Object.entries(columns)) {
    const found = await db.query<{ row: string }>(
      `SELECT row_to_json(t)::text AS row FROM (SELECT ${names.map((n) => `"${n}"`).join(', ')} FROM ${table}) t`,
    );
    rows[table] = found.map((r) => r.row).sort();
  }
  return rows;
}

const tablesOf = async (db: Database) =>
  (
    await db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables
       WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
    )
  ).map((r) => r.table_name);

describe(`migration 016, credits (${databaseLabel})`, () => {
  let database: OpenTestDatabase & { next: string[] };
  let db: Database;
  let earlierTables: string[];
  let earlierColumns: Record<string, string[]>;
  let earlierRows: Record<string, string[]>;
  before(async () => {
    database = await migratedBefore('016');
    db = database.db;
    await db.exec(FILL);
    earlierTables = (await tablesOf(db)).filter((table) => table !== 'schema_migrations');
    earlierColumns = await columnsOf(db, earlierTables);
    earlierRows = await everyRow(db, earlierColumns);
  });
  after(() => database.close());

  test('applies after the earlier ones and keeps every row of every table', async () => {
    assert.ok(database.next[0]!.startsWith('016'), database.next.join(', '));
    assert.deepEqual(await migrate(db), database.next);
    for (const table of earlierTables)
      assert.ok(earlierRows[table]!.length > 0, `the test filled ${table}`);
    assert.deepEqual(await everyRow(db, earlierColumns), earlierRows);
    assert.deepEqual(await migrate(db), [], 'nothing applied twice');
  });

  test('the credit tables start empty', async () => {
    const tables = await tablesOf(db);
    for (const table of [
      'credit_balances',
      'credit_entries',
      'credit_purchases',
      'credit_spends',
    ]) {
      assert.ok(tables.includes(table), table);
      assert.deepEqual(await db.query(`SELECT * FROM ${table}`), [], table);
    }
  });

  test('a user and an organisation from before get a balance and entries as new ones do', async () => {
    const credits = creditsRepository(db);
    const now = new Date('2026-12-01T00:00:00Z');
    for (const subject of [
      { type: 'user' as const, id: ANN },
      { type: 'organization' as const, id: ACME },
    ]) {
      assert.deepEqual(await credits.lock(subject), {
        grant: null,
        purchased: 0,
        depleted: false,
      });
      await credits.write(subject, { grant: null, purchased: 25, depleted: false }, [
        {
          at: now,
          kind: 'adjustment',
          amount: 25,
          balanceAfter: 25,
          reason: 'after the upgrade',
          source: null,
        },
      ]);
      assert.deepEqual(await credits.find(subject), {
        grant: null,
        purchased: 25,
        depleted: false,
      });
      const [entry] = await credits.entries(subject, 10, null);
      assert.equal(entry!.kind, 'adjustment');
      assert.equal(entry!.balanceAfter, 25);
    }
    await assert.rejects(
      db.exec(`INSERT INTO credit_entries (subject_type, subject_id, at, kind, amount, balance_after)
        VALUES ('user', '${BOB}', now(), 'spend', -1, -1)`),
      /balance_after|check/i,
      'the database keeps a balance at zero or above',
    );
  });
});
