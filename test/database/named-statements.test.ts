// Named statements by default, and through a transaction-pooling PgBouncer (where a name prepared
// by one client is found on a server connection another client is handed) correct with no
// setting: the first refusal turns statements unnamed, says so once, and what it refused runs
// again. Forced named, the same refusal is an error (what the default would meet without it).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openPostgres } from '../../src/adapters/database/postgres.ts';
import type { StatementMode } from '../../src/adapters/database/statement-names.ts';
import { createTestDatabase, onPostgres, type TestDatabase } from '../helpers/database.ts';
import { pgbouncerMissing, startPgBouncer, type PrivatePgBouncer } from '../helpers/pgbouncer.ts';

const COUNT = 'SELECT count(*)::int AS n FROM named_test';

describe(
  'named statements through a transaction-pooling PgBouncer',
  { skip: (!onPostgres && 'needs PostgreSQL') || pgbouncerMissing },
  () => {
    let database: TestDatabase;
    let bouncer: PrivatePgBouncer;
    const opened: { close(): Promise<void> }[] = [];
    const open = (statements: StatementMode, warnings: string[] = []) => {
      const db = openPostgres(bouncer.through(database.url), {
        poolSize: 1,
        statements,
        warn: (message) => warnings.push(message),
      });
      opened.push(db);
      return db;
    };
    before(async () => {
      database = await createTestDatabase();
      bouncer = await startPgBouncer(process.env.TEST_POSTGRES_URL!);
      await open('unnamed').exec('CREATE TABLE named_test (id int PRIMARY KEY)');
    });
    after(async () => {
      await Promise.all(opened.map((db) => db.close()));
      await bouncer?.stop();
      await database?.drop();
    });

    test('a statement whose name another client prepared runs unnamed, said once', async () => {
      // One client at a time: PgBouncer hands each the server connection the last one used.
      const first = open('auto');
      assert.deepEqual(await first.query(COUNT), [{ n: 0 }]);
      const warnings: string[] = [];
      const second = open('auto', warnings);
      assert.deepEqual(await second.query(COUNT), [{ n: 0 }]);
      assert.deepEqual(await second.query(COUNT), [{ n: 0 }]);
      assert.equal(warnings.length, 1, warnings.join('\n'));
      assert.match(warnings[0]!, /unnamed from now on.*DATABASE_PREPARED_STATEMENTS=false/);
    });

    test('a transaction refused halfway runs again whole, and commits once', async () => {
      const insert = 'INSERT INTO named_test (id) VALUES ($1)';
      await open('auto').transaction(async (tx) => {
        await tx.query(insert, [1]);
      });
      let runs = 0;
      const second = open('auto');
      await second.transaction(async (tx) => {
        runs += 1;
        await tx.query('SELECT 1');
        await tx.query(insert, [2]);
      });
      assert.equal(runs, 2);
      assert.deepEqual(await second.query(COUNT), [{ n: 2 }]);
    });

    test('forced named, the refusal is an error', async () => {
      const fresh = `${COUNT} WHERE id > 0`; // named on no server connection yet
      await open('named').query(fresh);
      await assert.rejects(open('named').query(fresh), { code: '42P05' });
    });
  },
);
