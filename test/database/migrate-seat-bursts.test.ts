// Migration 015 (seat bursts) on a database an earlier release filled: every organisation's seat
// state is kept, one left pending still pending, each counted as no push made in its burst yet.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { migrate } from '../../src/adapters/database/migrate.ts';
import { databaseLabel, migratedBefore, type OpenTestDatabase } from '../helpers/database.ts';

const PENDING = '00000000-0000-4000-8000-0000000000a1';
const SETTLED = '00000000-0000-4000-8000-0000000000a2';

describe(`migration 015, seat bursts (${databaseLabel})`, () => {
  let database: OpenTestDatabase & { next: string[] };
  before(async () => {
    database = await migratedBefore('015');
    await database.db.exec(`
      INSERT INTO organizations (id, issuer, idp_org_id) VALUES
        ('${PENDING}', 'https://idp.example', 'pending'),
        ('${SETTLED}', 'https://idp.example', 'settled');
      INSERT INTO organization_seats (organization_id, reported, desired, revision, pushed_revision,
          changes, changed_at, pending_since) VALUES
        ('${PENDING}', 12, 9, 3, 3, 7, '2026-11-01T10:00:00Z', '2026-11-01T09:59:00Z'),
        ('${SETTLED}', NULL, 4, 1, 1, 2, '2026-10-01T10:00:00Z', NULL);`);
  });
  after(() => database.close());

  test('applies after the earlier ones and keeps every row', async () => {
    assert.deepEqual(await migrate(database.db), database.next);
    const rows = await database.db.query(
      `SELECT idp_org_id, reported, desired, revision::int, changes::int, pending_since, burst_pushes
       FROM organization_seats JOIN organizations o ON o.id = organization_id ORDER BY idp_org_id`,
    );
    assert.deepEqual(rows, [
      {
        idp_org_id: 'pending',
        reported: 12,
        desired: 9,
        revision: 3,
        changes: 7,
        pending_since: new Date('2026-11-01T09:59:00Z'),
        burst_pushes: 0,
      },
      {
        idp_org_id: 'settled',
        reported: null,
        desired: 4,
        revision: 1,
        changes: 2,
        pending_since: null,
        burst_pushes: 0,
      },
    ]);
  });
});
