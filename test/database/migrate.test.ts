// Migrations: applied once each, in order, the same files on PGlite and PostgreSQL; a failing
// migration throws (so start-up stops) and leaves nothing of itself behind.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { migrate } from '../../src/adapters/database/migrate.ts';
import { openDatabase } from '../../src/adapters/database/open.ts';
import type { Database } from '../../src/adapters/database/sql-client.ts';
import {
  createTestDatabase,
  databaseLabel,
  onPostgres,
  type TestDatabase,
} from '../helpers/database.ts';

describe(`migrations (${databaseLabel})`, () => {
  let database: TestDatabase;
  let db: Database;
  let dir: string;
  before(async () => {
    database = await createTestDatabase();
    db = await openDatabase(
      onPostgres ? { kind: 'postgres', url: database.url, poolSize: 5 } : { kind: 'pglite' },
    );
    dir = await mkdtemp(join(tmpdir(), 'migrations-'));
  });
  after(async () => {
    await db.close();
    await database.drop();
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
});
