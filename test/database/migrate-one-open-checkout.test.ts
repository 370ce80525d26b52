// Migration 011 (one open checkout session per subject) on a database an earlier release filled:
// every session row is kept; one whose time ran out becomes `expired`, and of several still open
// for one subject the newest stays open and the others become `replaced` (the subject's next
// checkout or subscription expires them at the provider). From then on the database refuses a
// second open session for a user or an organisation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { migrate } from '../../src/adapters/database/migrate.ts';
import type { Database } from '../../src/adapters/database/sql-client.ts';
import { databaseLabel, migratedBefore, type OpenTestDatabase } from '../helpers/database.ts';

const TABS = '00000000-0000-4000-8000-000000000001';
const ORG = '00000000-0000-4000-8000-0000000000aa';
const LATER = new Date(Date.now() + 3_600_000).toISOString();

const session = (id: string, owner: string, created: string, expires = LATER) =>
  `('${id}', ${owner}, 'https://x/${id}', 'price_sim_pro', 'https://a', 'https://b', '${expires}', '${created}')`;

describe(`migration 011, one open checkout per subject (${databaseLabel})`, () => {
  let database: OpenTestDatabase & { next: string[] };
  let db: Database;
  before(async () => {
    database = await migratedBefore('011');
    db = database.db;
    await db.exec(`
      INSERT INTO users (id, idp_id, email) VALUES ('${TABS}', 'tabs', 'tabs@example.com');
      INSERT INTO organizations (id, issuer, idp_org_id) VALUES ('${ORG}', 'https://issuer', 'acme');
      INSERT INTO checkout_sessions (id, user_id, url, price_id, success_url, cancel_url,
          expires_at, created_at) VALUES
        ${session('cs_first_tab', `'${TABS}'`, '2026-01-01T10:00:00Z')},
        ${session('cs_second_tab', `'${TABS}'`, '2026-01-01T10:05:00Z')},
        ${session('cs_timed_out', `'${TABS}'`, '2026-01-01T09:00:00Z', '2026-01-02T09:00:00Z')};
      INSERT INTO checkout_sessions (id, organization_id, url, price_id, success_url, cancel_url,
          expires_at, created_at) VALUES
        ${session('cs_org', `'${ORG}'`, '2026-01-01T10:00:00Z')};
      UPDATE checkout_sessions SET status = 'complete' WHERE id = 'cs_timed_out';
      INSERT INTO checkout_sessions (id, user_id, url, price_id, success_url, cancel_url,
          expires_at, created_at) VALUES
        ${session('cs_left_open', `'${TABS}'`, '2025-12-01T09:00:00Z', '2025-12-02T09:00:00Z')};`);
  });
  after(() => database.close());

  test('keeps every row: the newest open stays open, older open ones replaced, timed-out expired', async () => {
    assert.deepEqual(await migrate(db), database.next);
    assert.deepEqual(await db.query('SELECT id, status FROM checkout_sessions ORDER BY id'), [
      { id: 'cs_first_tab', status: 'replaced' },
      { id: 'cs_left_open', status: 'expired' },
      { id: 'cs_org', status: 'open' },
      { id: 'cs_second_tab', status: 'open' },
      { id: 'cs_timed_out', status: 'complete' },
    ]);
  });

  test('a second open session for the user or the organisation is refused', async () => {
    await assert.rejects(
      db.exec(`INSERT INTO checkout_sessions (id, user_id, url, price_id, success_url, cancel_url,
          expires_at, created_at) VALUES ${session('cs_third_tab', `'${TABS}'`, '2026-01-01T11:00:00Z')}`),
      /checkout_sessions_one_open_user/,
    );
    await assert.rejects(
      db.exec(`INSERT INTO checkout_sessions (id, organization_id, url, price_id, success_url,
          cancel_url, expires_at, created_at) VALUES ${session('cs_org_2', `'${ORG}'`, '2026-01-01T11:00:00Z')}`),
      /checkout_sessions_one_open_organization/,
    );
  });
});
