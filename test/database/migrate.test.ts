// Migrations: applied once each, in order, the same files on PGlite and PostgreSQL; a failing
// migration throws (so start-up stops) and leaves nothing of itself behind.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { migrate } from '../../src/adapters/database/migrate.ts';
import type { Database } from '../../src/adapters/database/sql-client.ts';
import {
  databaseLabel,
  migratedBefore,
  openTestDatabase,
  type OpenTestDatabase,
} from '../helpers/database.ts';

describe(`migrations (${databaseLabel})`, () => {
  let database: OpenTestDatabase;
  let db: Database;
  let dir: string;
  before(async () => {
    database = await openTestDatabase(5);
    db = database.db;
    dir = await mkdtemp(join(tmpdir(), 'migrations-'));
  });
  after(async () => {
    await database.close();
    await rm(dir, { recursive: true, force: true });
  });

  test("the project's migrations apply once; a second run applies nothing", async () => {
    const first = await migrate(db);
    assert.ok(first.length >= 2);
    assert.deepEqual(first, [...first].sort());
    assert.deepEqual(await migrate(db), []);
  });

  test('a failing migration throws naming the file and keeps none of its statements', async () => {
    await writeFile(join(dir, '001_good.sql'), 'CREATE TABLE probe_good (id int);');
    await writeFile(
      join(dir, '002_bad.sql'),
      'CREATE TABLE probe_partial (id int); SELECT no_such_function();',
    );
    await assert.rejects(migrate(db, dir), /migration 002_bad\.sql failed/);
    const tables = await db.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_name LIKE 'probe_%'",
    );
    assert.deepEqual(tables, []);
  });

  test('005 keeps every stored row and marks the users who already had a subscription', async () => {
    const database2 = await migratedBefore('005');
    const db2 = database2.db;
    try {
      await db2.exec(`
        INSERT INTO users (id, idp_id, email, payments_customer_id) VALUES
          ('00000000-0000-4000-8000-000000000001', 'had', 'had@example.com', 'cus_had'),
          ('00000000-0000-4000-8000-000000000002', 'never', 'never@example.com', NULL);
        INSERT INTO subscriptions (id, user_id, customer_id, status, price_id, cancel_at_period_end,
            current_period_end, created_at, as_of)
          VALUES ('sub_old', '00000000-0000-4000-8000-000000000001', 'cus_had', 'canceled',
            'price_sim_pro', true, '2025-02-01T00:00:00Z', '2025-01-01T00:00:00Z', 1735689600);
        INSERT INTO checkout_sessions (id, user_id, url, price_id, success_url, cancel_url, expires_at)
          VALUES ('cs_old', '00000000-0000-4000-8000-000000000002', 'https://x', 'price_sim_pro',
            'https://a', 'https://b', '2025-01-02T00:00:00Z');`);
      assert.deepEqual(await migrate(db2), database2.next, '005 and every later one');
      const users = await db2.query<{ idp_id: string; first_subscription_at: Date | null }>(
        'SELECT idp_id, first_subscription_at FROM users ORDER BY idp_id',
      );
      assert.deepEqual(
        users.map((u) => [u.idp_id, u.first_subscription_at?.toISOString() ?? null]),
        [
          ['had', '2025-01-01T00:00:00.000Z'],
          ['never', null],
        ],
      );
      const [subscription] = await db2.query<Record<string, unknown>>(
        "SELECT status, cancel_at_period_end, cancel_at, trial_end FROM subscriptions WHERE id = 'sub_old'",
      );
      assert.deepEqual(subscription, {
        status: 'canceled',
        cancel_at_period_end: true,
        cancel_at: null,
        trial_end: null,
      });
      const [session] = await db2.query<Record<string, unknown>>(
        "SELECT price_id, trial_days FROM checkout_sessions WHERE id = 'cs_old'",
      );
      assert.deepEqual(session, { price_id: 'price_sim_pro', trial_days: null });
    } finally {
      await database2.close();
    }
  });
});
