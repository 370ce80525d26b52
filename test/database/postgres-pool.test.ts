// A connection whose server process dies mid-transaction is never handed to the next caller: the
// transaction fails as unavailable, and the one waiting for the connection gets a fresh one.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '../../src/adapters/database/open.ts';
import { DatabaseUnavailableError, type Database } from '../../src/adapters/database/sql-client.ts';
import { createTestDatabase, onPostgres, type TestDatabase } from '../helpers/database.ts';

describe(
  'PostgreSQL pool after a lost connection',
  { skip: !onPostgres && 'PostgreSQL only' },
  () => {
    let database: TestDatabase;
    let db: Database;
    let admin: Database;
    before(async () => {
      database = await createTestDatabase();
      db = await openDatabase({ kind: 'postgres', url: database.url, poolSize: 1 });
      admin = await openDatabase({ kind: 'postgres', url: database.url, poolSize: 1 });
    });
    after(async () => {
      await db.close();
      await admin.close();
      await database.drop();
    });

    test('a transaction whose backend is terminated fails; the next one, already waiting, succeeds', async () => {
      let backend: number | undefined;
      // Its failure is taken as it comes (it may come before the assertion below is reached).
      const doomed = db
        .transaction(async (tx) => {
          [{ pid: backend }] = (await tx.query<{ pid: number }>(
            'SELECT pg_backend_pid() AS pid',
          )) as [{ pid: number }];
          await tx.query('SELECT pg_sleep(10)');
        })
        .then(
          () => 'committed',
          (error: unknown) => error,
        );
      while (backend === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
      // The only connection is taken: this one waits for it.
      const next = db.transaction(
        async (tx) => (await tx.query<{ one: number }>('SELECT 1 AS one'))[0]!.one,
      );
      await admin.query('SELECT pg_terminate_backend($1)', [backend]);
      assert.ok((await doomed) instanceof DatabaseUnavailableError);
      assert.equal(await next, 1);
    });
  },
);
