// The event ledger on a real database: `apply` runs once per event however many deliveries race
// (on one instance or two), a new event goes straight into its transaction with no read first, and
// a failing `apply` leaves neither its effects nor a record. A redelivery of an event this process
// saw committed costs no statement at all; one committed by another instance, one transaction that
// finds the record and rolls back.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CommittedIds } from '../../src/adapters/database/committed-ids.ts';
import { createEventLedger, recordedTypeIn } from '../../src/adapters/database/event-ledger.ts';
import { openMigratedDatabase } from '../../src/adapters/database/open.ts';
import type { Database } from '../../src/adapters/database/sql-client.ts';
import type { EventLedger } from '../../src/domain/ports/event-ledger.ts';
import type { Repositories } from '../../src/domain/ports/store.ts';
import { createTestDatabase, databaseLabel, type TestDatabase } from '../helpers/database.ts';

describe(`event ledger (${databaseLabel})`, () => {
  let database: TestDatabase;
  let db: Database;
  let ledger: EventLedger;
  /** Another instance's ledger on the same database: its own process, its own memory. */
  let elsewhere: EventLedger;
  // Reads that come before any transaction, counted around the real one.
  let readsFirst = 0;
  before(async () => {
    database = await createTestDatabase();
    const url =
      database.url === 'memory://'
        ? { kind: 'pglite' as const, dataDir: null }
        : { kind: 'postgres' as const, url: database.url, poolSize: 10 };
    db = (await openMigratedDatabase(url)).db;
    const isRecorded = recordedTypeIn(db);
    ledger = createEventLedger(db, 'dropped', (id) => {
      readsFirst++;
      return isRecorded(id);
    });
    elsewhere = createEventLedger(db, 'dropped');
  });
  after(async () => {
    await db.close();
    await database.drop();
  });

  const record = (id: string) => ({
    id,
    type: 'customer.subscription.updated',
    livemode: false,
    outcome: 'processed' as const,
    created: 1_700_000_000,
  });
  /** Delivers the event `times` times at once; answers sorted, effects counted. */
  async function race(id: string, times: number) {
    const answers = await Promise.all(
      Array.from({ length: times }, () =>
        ledger
          .recordOnce(record(id), async (tx) => {
            await tx.users.findByIdpId('nobody'); // a statement inside the transaction, as a handler's
          })
          .then(async (recorded) => (recorded ? 'processed' : 'duplicate')),
      ),
    );
    return answers.sort();
  }

  test('new events go straight into their transaction, no read first', async () => {
    for (let i = 0; i < 20; i++) assert.deepEqual(await race(`evt_new_${i}`, 1), ['processed']);
    assert.equal(readsFirst, 0);
  });

  test("another instance's events are duplicates here; deliveries racing on both apply once", async () => {
    // Events another instance processed: this one has not seen their records committed.
    for (let i = 0; i < 10; i++)
      assert.ok(await elsewhere.recordOnce(record(`evt_replayed_${i}`), async () => {}));
    for (let i = 0; i < 10; i++)
      assert.deepEqual(await race(`evt_replayed_${i}`, 1), ['duplicate']);
    for (let round = 0; round < 30; round++) {
      const id = `evt_racing_${round}`;
      let applied = 0;
      // What a handler does once its first statement is answered: never for a recorded event.
      const apply = async (tx: Repositories) => {
        await tx.users.findByIdpId('nobody');
        applied++;
      };
      const answers = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          (i % 2 ? elsewhere : ledger).recordOnce(record(id), apply),
        ),
      );
      assert.equal(answers.filter(Boolean).length, 1, id);
      assert.equal(applied, 1, id);
    }
    assert.equal(readsFirst, 0);
  });

  test('a redelivery of an event this process saw committed costs no statement; a forgotten one, a read', async () => {
    let statements = 0;
    const counted: Database = {
      ...db,
      query: (sql, params) => {
        statements++;
        return db.query(sql, params);
      },
      transaction: (work) => {
        statements++;
        return db.transaction(work);
      },
    };
    const here = createEventLedger(
      counted,
      'dropped',
      recordedTypeIn(counted),
      new CommittedIds(8),
    );
    for (let i = 0; i < 10; i++)
      assert.ok(await here.recordOnce(record(`evt_cached_${i}`), async () => {}));
    statements = 0;
    for (let round = 0; round < 50; round++)
      assert.equal(await here.recordOnce(record('evt_cached_9'), async () => assert.fail()), false);
    assert.ok(await here.isRecorded('evt_cached_8'));
    assert.equal(statements, 0, 'answered from memory');
    // Bounded: the oldest ids are forgotten, and their redeliveries find the record in the database.
    assert.equal(await here.recordOnce(record('evt_cached_0'), async () => assert.fail()), false);
    assert.ok(statements > 0);
  });

  test('a failing apply rolls back its effects and records nothing; the next delivery applies', async () => {
    const failing = ledger.recordOnce(record('evt_fails'), async (tx) => {
      await tx.users.upsertByIdpId('ledger-rollback', 'rollback@example.com');
      throw new Error('handler failed');
    });
    await assert.rejects(failing, /handler failed/);
    assert.equal(
      await db
        .query('SELECT 1 FROM users WHERE idp_id = $1', ['ledger-rollback'])
        .then((rows) => rows.length),
      0,
    );
    assert.deepEqual(await race('evt_fails', 3), ['duplicate', 'duplicate', 'processed']);
  });
});
