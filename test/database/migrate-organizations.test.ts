// Migration 010 (organisations) on a database an earlier release filled: every user, subscription
// and checkout session is kept as a user's; a subscription or session belongs to exactly one
// subject from then on; one trial per subject still holds (the database marks a user, and now an
// organisation); a provider customer is never a user's and an organisation's at once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { migrate } from '../../src/adapters/database/migrate.ts';
import type { Database } from '../../src/adapters/database/sql-client.ts';
import { databaseLabel, migratedBefore, type OpenTestDatabase } from '../helpers/database.ts';

const USER = '00000000-0000-4000-8000-000000000001';
const NEVER = '00000000-0000-4000-8000-000000000002';

describe(`migration 010, organisations (${databaseLabel})`, () => {
  let database: OpenTestDatabase & { next: string[] };
  let db: Database;
  before(async () => {
    database = await migratedBefore('010');
    db = database.db;
    await db.exec(`
      INSERT INTO users (id, idp_id, email, payments_customer_id) VALUES
        ('${USER}', 'had', 'had@example.com', 'cus_had'),
        ('${NEVER}', 'never', 'never@example.com', NULL);
      INSERT INTO subscriptions (id, user_id, customer_id, status, price_id, cancel_at_period_end,
          current_period_end, created_at, as_of)
        VALUES ('sub_old', '${USER}', 'cus_had', 'active', 'price_sim_pro', false,
          '2025-02-01T00:00:00Z', '2025-01-01T00:00:00Z', 1735689600);
      INSERT INTO checkout_sessions (id, user_id, url, price_id, success_url, cancel_url, expires_at)
        VALUES ('cs_old', '${NEVER}', 'https://x', 'price_sim_pro', 'https://a', 'https://b',
          '2025-01-02T00:00:00Z');`);
  });
  after(() => database.close());

  test("applies after the earlier ones and keeps every row a user's", async () => {
    assert.deepEqual(await migrate(db), database.next);
    assert.deepEqual(
      await db.query(
        "SELECT user_id, organization_id, status, item_id, quantity FROM subscriptions WHERE id = 'sub_old'",
      ),
      [{ user_id: USER, organization_id: null, status: 'active', item_id: null, quantity: null }],
    );
    assert.deepEqual(
      await db.query(
        "SELECT user_id, organization_id, quantity, trial_days FROM checkout_sessions WHERE id = 'cs_old'",
      ),
      [{ user_id: NEVER, organization_id: null, quantity: null, trial_days: null }],
    );
    const [had] = await db.query<{ first_subscription_at: Date }>(
      "SELECT first_subscription_at FROM users WHERE idp_id = 'had'",
    );
    assert.equal(had!.first_subscription_at.toISOString(), '2025-01-01T00:00:00.000Z');
  });

  test('a subscription or a session belongs to exactly one subject', async () => {
    await db.exec(
      "INSERT INTO organizations (id, issuer, idp_org_id) VALUES ('00000000-0000-4000-8000-0000000000aa', 'https://issuer', 'acme')",
    );
    for (const [user, organization] of [
      ['NULL', 'NULL'],
      [`'${NEVER}'`, "'00000000-0000-4000-8000-0000000000aa'"],
    ])
      await assert.rejects(
        db.exec(`INSERT INTO subscriptions (id, user_id, organization_id, customer_id, status, created_at, as_of)
          VALUES ('sub_bad', ${user}, ${organization}, 'cus_x', 'active', now(), 0)`),
        /subscriptions_one_subject/,
      );
  });

  test("a user's customer is never an organisation's, nor the other way round", async () => {
    await assert.rejects(
      db.exec(
        "UPDATE organizations SET payments_customer_id = 'cus_had' WHERE idp_org_id = 'acme'",
      ),
      /belongs to another billing subject/,
    );
    await db.exec(
      "UPDATE organizations SET payments_customer_id = 'cus_acme' WHERE idp_org_id = 'acme'",
    );
    await assert.rejects(
      db.exec(`UPDATE users SET payments_customer_id = 'cus_acme' WHERE id = '${NEVER}'`),
      /belongs to another billing subject/,
    );
  });
});
