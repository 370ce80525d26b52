// Migrations 012 to 014 (outbound events, pending changes, the pending change last told) on a
// database an earlier release filled: every user, organisation and subscription is kept; each
// subject with a subscription starts unknown to the application (tier null, nothing pending told),
// so its tier is recorded without an event; nothing is queued to send and nothing is pending.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { migrate } from '../../src/adapters/database/migrate.ts';
import type { Database } from '../../src/adapters/database/sql-client.ts';
import { databaseLabel, migratedBefore, type OpenTestDatabase } from '../helpers/database.ts';

const PAYER = '00000000-0000-4000-8000-000000000001';
const BROWSER = '00000000-0000-4000-8000-000000000002';
const ORG = '00000000-0000-4000-8000-0000000000aa';

const subscription = (id: string, owner: string, customer: string) =>
  `('${id}', ${owner}, '${customer}', 'active', 'price_sim_pro', false,
    '2026-02-01T00:00:00Z', '2026-01-01T00:00:00Z', 1767225600)`;

describe(`migrations 012 to 014, outbound events and schedules (${databaseLabel})`, () => {
  let database: OpenTestDatabase & { next: string[] };
  let db: Database;
  before(async () => {
    database = await migratedBefore('012');
    db = database.db;
    await db.exec(`
      INSERT INTO users (id, idp_id, email, payments_customer_id) VALUES
        ('${PAYER}', 'payer', 'payer@example.com', 'cus_payer'),
        ('${BROWSER}', 'browser', 'browser@example.com', NULL);
      INSERT INTO organizations (id, issuer, idp_org_id, payments_customer_id)
        VALUES ('${ORG}', 'https://issuer', 'acme', 'cus_acme');
      INSERT INTO subscriptions (id, user_id, customer_id, status, price_id, cancel_at_period_end,
          current_period_end, created_at, as_of) VALUES ${subscription('sub_payer', `'${PAYER}'`, 'cus_payer')};
      INSERT INTO subscriptions (id, organization_id, customer_id, status, price_id,
          cancel_at_period_end, current_period_end, created_at, as_of)
        VALUES ${subscription('sub_acme', `'${ORG}'`, 'cus_acme')};`);
  });
  after(() => database.close());

  test('applies after the earlier ones and keeps every row', async () => {
    assert.deepEqual(await migrate(db), database.next);
    assert.deepEqual(
      await db.query('SELECT id, user_id, organization_id, status FROM subscriptions ORDER BY id'),
      [
        { id: 'sub_acme', user_id: null, organization_id: ORG, status: 'active' },
        { id: 'sub_payer', user_id: PAYER, organization_id: null, status: 'active' },
      ],
    );
    assert.deepEqual(await db.query('SELECT idp_id FROM users ORDER BY idp_id'), [
      { idp_id: 'browser' },
      { idp_id: 'payer' },
    ]);
    assert.deepEqual(await db.query('SELECT idp_org_id FROM organizations'), [
      { idp_org_id: 'acme' },
    ]);
  });

  test('each billed subject starts unknown to the application; nothing queued or pending', async () => {
    assert.deepEqual(
      await db.query(
        `SELECT subject_type, subject_id, tier, pending_price_id, pending_effective_at
         FROM announced_subjects ORDER BY subject_type, subject_id`,
      ),
      [
        {
          subject_type: 'organization',
          subject_id: ORG,
          tier: null,
          pending_price_id: null,
          pending_effective_at: null,
        },
        {
          subject_type: 'user',
          subject_id: PAYER,
          tier: null,
          pending_price_id: null,
          pending_effective_at: null,
        },
      ],
    );
    assert.deepEqual(await db.query('SELECT count(*)::int AS n FROM outbound_events'), [{ n: 0 }]);
    assert.deepEqual(await db.query('SELECT count(*)::int AS n FROM pending_changes'), [{ n: 0 }]);
  });
});
