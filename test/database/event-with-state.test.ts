// An event that carries its subscription's state, recorded and applied in one statement on a real
// database: written over an older state of the same customer (an organisation's seats with it, the
// seat engine told), nothing over a newer one, each with the record; nothing at all where the
// ordering cannot settle it alone (the same second, nothing stored, another customer). Deliveries
// of one event racing on several instances apply it once, and two newer events racing leave the
// newest.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEventLedger } from '../../src/adapters/database/event-ledger.ts';
import { openMigratedDatabase } from '../../src/adapters/database/open.ts';
import type { Database } from '../../src/adapters/database/sql-client.ts';
import { createStore } from '../../src/adapters/database/store.ts';
import type { SubjectRef } from '../../src/domain/model.ts';
import type { CarriedState } from '../../src/domain/ports/event-ledger.ts';
import { createTestDatabase, databaseLabel, type TestDatabase } from '../helpers/database.ts';

const STORED_AS_OF = 1_700_000_000;
const ISSUER = 'https://idp.example.com';

describe(`an event with its state in one statement (${databaseLabel})`, () => {
  let database: TestDatabase;
  let db: Database;
  let statements = 0;
  /** The database as a ledger sees it, its statements counted. */
  let counted: Database;
  before(async () => {
    database = await createTestDatabase();
    const url =
      database.url === 'memory://'
        ? { kind: 'pglite' as const, dataDir: null }
        : { kind: 'postgres' as const, url: database.url, poolSize: 10 };
    db = (await openMigratedDatabase(url)).db;
    counted = {
      ...db,
      query: (sql, params) => {
        statements++;
        return db.query(sql, params);
      },
      transaction: (work, last) => {
        statements++;
        return db.transaction(work, last);
      },
    };
  });
  after(async () => {
    await db.close();
    await database.drop();
  });

  /** A stored subscription of a user, else of an organisation, active, as of STORED_AS_OF. */
  async function storedSubscription(id: string, payer: SubjectRef['type'] = 'user') {
    const store = createStore(db);
    const owner: SubjectRef =
      payer === 'user'
        ? { type: 'user', id: (await store.users.upsertByIdpId(`user-${id}`, `${id}@x.test`)).id }
        : { type: 'organization', id: (await store.organizations.upsert(ISSUER, `org-${id}`)).id };
    const state: CarriedState = {
      id,
      customerId: `cus_${id}`,
      status: 'active',
      priceId: 'price_pro',
      itemId: `si_${id}`,
      quantity: 1,
      cancelAtPeriodEnd: false,
      cancelAt: null,
      currentPeriodEnd: new Date((STORED_AS_OF + 30 * 86_400) * 1000),
      trialEnd: null,
      createdAt: new Date((STORED_AS_OF - 60) * 1000),
      paymentFailedAt: null,
      asOf: STORED_AS_OF,
    };
    assert.ok(await store.subscriptions.insert({ ...state, owner }));
    return state;
  }
  const canceling = (state: CarriedState, asOf: number): CarriedState => ({
    ...state,
    cancelAtPeriodEnd: true,
    asOf,
  });
  const record = (id: string, created: number) => ({
    id,
    type: 'customer.subscription.updated',
    livemode: false,
    outcome: 'processed' as const,
    created,
  });
  const storedState = async (id: string) => (await createStore(db).subscriptions.find(id))!;
  const recorded = async (id: string) =>
    (await db.query('SELECT 1 FROM webhook_events WHERE id = $1', [id])).length > 0;

  test('a newer event: its state written and the event recorded, in one statement', async () => {
    const stored = await storedSubscription('sub_newer');
    const ledger = createEventLedger(counted);
    statements = 0;
    const step = await ledger.recordWithState(
      record('evt_newer', STORED_AS_OF + 5),
      canceling(stored, STORED_AS_OF + 5),
    );
    assert.equal(step, 'written');
    assert.equal(statements, 1);
    const after = await storedState('sub_newer');
    assert.deepEqual([after.cancelAtPeriodEnd, after.asOf], [true, STORED_AS_OF + 5]);
    assert.ok(await recorded('evt_newer'));
  });

  test("an organisation's newer event: its seats written with the state, the seat engine told", async () => {
    const stored = await storedSubscription('sub_org', 'organization');
    const before = await storedState('sub_org');
    const seatChanges = async () => {
      const [row] = await db.query<{ changes: string | number }>(
        'SELECT changes FROM organization_seats WHERE organization_id = $1',
        [before.owner.id],
      );
      return Number(row?.changes ?? 0);
    };
    const changesBefore = await seatChanges();
    const step = await createEventLedger(db).recordWithState(record('evt_org', STORED_AS_OF + 5), {
      ...stored,
      quantity: 7,
      asOf: STORED_AS_OF + 5,
    });
    assert.equal(step, 'written');
    const after = await storedState('sub_org');
    assert.deepEqual([after.quantity, after.itemId, after.owner], [7, 'si_sub_org', before.owner]);
    assert.equal(await seatChanges(), changesBefore + 1);
  });

  test('an older event: recorded, the stored state left alone', async () => {
    const stored = await storedSubscription('sub_older');
    const before = await storedState('sub_older');
    const ledger = createEventLedger(db);
    const step = await ledger.recordWithState(
      record('evt_older', STORED_AS_OF - 5),
      canceling(stored, STORED_AS_OF - 5),
    );
    assert.equal(step, 'older');
    assert.deepEqual(await storedState('sub_older'), before);
    assert.ok(await recorded('evt_older'));
  });

  test('the same second, nothing stored, another customer: nothing done, nothing recorded', async () => {
    const stored = await storedSubscription('sub_unsettled');
    const before = await storedState('sub_unsettled');
    const ledger = createEventLedger(db);
    const cases: [string, CarriedState][] = [
      ['evt_same_second', canceling(stored, STORED_AS_OF)],
      ['evt_unknown', { ...canceling(stored, STORED_AS_OF + 5), id: 'sub_nobody_stored' }],
      ['evt_other_customer', { ...canceling(stored, STORED_AS_OF + 5), customerId: 'cus_other' }],
    ];
    for (const [eventId, state] of cases) {
      assert.equal(
        await ledger.recordWithState(record(eventId, state.asOf), state),
        'unsettled',
        eventId,
      );
      assert.equal(await recorded(eventId), false, eventId);
    }
    assert.deepEqual(await storedState('sub_unsettled'), before);
  });

  test('deliveries of one event racing on eight instances: written once, by one of them', async () => {
    const stored = await storedSubscription('sub_raced');
    const before = await storedState('sub_raced');
    const steps = await Promise.all(
      Array.from({ length: 8 }, () =>
        createEventLedger(db).recordWithState(
          record('evt_raced', STORED_AS_OF + 5),
          canceling(stored, STORED_AS_OF + 5),
        ),
      ),
    );
    // The others find the record, or a state of the event's second (then the long way finds it).
    assert.deepEqual(steps.map((step) => (step === 'unsettled' ? 'duplicate' : step)).sort(), [
      ...Array<string>(7).fill('duplicate'),
      'written',
    ]);
    assert.equal((await storedState('sub_raced')).revision, before.revision + 1);
  });

  test('two newer events racing: both recorded, the newest state kept', async () => {
    const stored = await storedSubscription('sub_two');
    const ledger = createEventLedger(db);
    const steps = await Promise.all([
      ledger.recordWithState(
        record('evt_two_a', STORED_AS_OF + 2),
        canceling(stored, STORED_AS_OF + 2),
      ),
      ledger.recordWithState(record('evt_two_b', STORED_AS_OF + 3), {
        ...stored,
        status: 'past_due',
        asOf: STORED_AS_OF + 3,
      }),
    ]);
    assert.ok(
      steps.every((step) => step === 'written' || step === 'older'),
      steps.join(),
    );
    const after = await storedState('sub_two');
    assert.deepEqual([after.status, after.asOf], ['past_due', STORED_AS_OF + 3]);
    assert.ok((await recorded('evt_two_a')) && (await recorded('evt_two_b')));
  });
});
