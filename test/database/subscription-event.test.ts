// An event that carries its subscription's state, on a real database, through the one path every
// delivery takes (the ledger's transaction and the subscription handler), with outbound events
// recorded and dropped alike: the record and the conditional write are its only statements when it
// changes nothing the application is told; a tier it changes is told in the same transaction (the
// event written only where a destination is configured); an older event leaves the state alone;
// deliveries of one event racing on eight instances apply it once; two newer events racing leave
// the newest.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createEventLedger } from '../../src/adapters/database/event-ledger.ts';
import { openMigratedDatabase } from '../../src/adapters/database/open.ts';
import type { Database } from '../../src/adapters/database/sql-client.ts';
import { createStore, type OutboundEvents } from '../../src/adapters/database/store.ts';
import type { EventPolicy } from '../../src/domain/events/subject-changes.ts';
import type { ProviderSubscription } from '../../src/domain/model/subscriptions.ts';
import type { SubjectRef } from '../../src/domain/model/callers.ts';
import type { PaymentsProvider } from '../../src/domain/ports/payments-provider.ts';
import { DeliveryReads } from '../../src/domain/webhooks/delivery-reads.ts';
import { syncSubscription } from '../../src/domain/webhooks/subscription-sync.ts';
import { createTestDatabase, databaseLabel, type TestDatabase } from '../helpers/database.ts';

const STORED_AS_OF = 1_700_000_000;
const ISSUER = 'https://idp.example.com';
const POLICY: EventPolicy = {
  tierByPrice: new Map([
    ['price_pro', 'pro'],
    ['price_team', 'team'],
  ]),
  intervalByPrice: new Map(),
  graceDays: 7,
};
const SILENT = { debug() {}, info() {}, warn() {}, error() {} };
/** No read is expected of the provider on this path. */
const NO_PROVIDER = new Proxy({} as PaymentsProvider, {
  get: (_, name) => () => assert.fail(`the provider was asked ${String(name)}`),
});

for (const outbound of ['recorded', 'dropped'] as OutboundEvents[]) {
  describe(`an event with its subscription's state, events ${outbound} (${databaseLabel})`, () => {
    let database: TestDatabase;
    let db: Database;
    /** The statements sent inside event transactions. */
    let statements = 0;
    /** The database as a ledger sees it, the statements of its transactions counted. */
    let counted: Database;
    before(async () => {
      database = await createTestDatabase();
      const url =
        database.url === 'memory://'
          ? { kind: 'pglite' as const }
          : { kind: 'postgres' as const, url: database.url, poolSize: 10 };
      db = (await openMigratedDatabase(url)).db;
      counted = {
        ...db,
        transaction: (work) =>
          db.transaction((tx) =>
            work({
              ...tx,
              query: (sql, params) => {
                statements++;
                return tx.query(sql, params);
              },
            }),
          ),
      };
    });
    after(async () => {
      await db.close();
      await database.drop();
    });

    const store = () => createStore(db, outbound);
    /** A stored subscription of a user, else of an organisation, active on pro, as of STORED_AS_OF. */
    async function storedSubscription(id: string, payer: SubjectRef['type'] = 'user') {
      const owner: SubjectRef =
        payer === 'user'
          ? {
              type: 'user',
              id: (await store().users.upsertByIdpId(`user-${id}`, `${id}@x.test`)).id,
            }
          : {
              type: 'organization',
              id: (await store().organizations.upsert(ISSUER, `org-${id}`)).id,
            };
      const state: ProviderSubscription = {
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
        metadataUserId: null,
        metadataOrgId: null,
      };
      const stored = { ...state, owner, paymentFailedAt: null, asOf: STORED_AS_OF };
      assert.ok(await store().subscriptions.insert(stored));
      // Told what it is, as its checkout would have had it told.
      await db.query(
        `INSERT INTO announced_subjects (subject_type, subject_id, tier) VALUES ($1, $2, 'pro')`,
        [owner.type, owner.id],
      );
      return { state, owner };
    }
    /** Delivers event `eventId`, created at `created`, carrying `carried`: processed or duplicate. */
    async function deliver(
      eventId: string,
      created: number,
      carried: ProviderSubscription,
      ledger = createEventLedger(counted, outbound),
    ) {
      const record = {
        id: eventId,
        type: 'customer.subscription.updated',
        livemode: false,
        outcome: 'processed' as const,
        created,
      };
      const reads = new DeliveryReads(NO_PROVIDER, created);
      const telling = { policy: POLICY, cause: null, now: new Date() };
      const recorded = await ledger.recordOnce(record, (tx) =>
        syncSubscription({ tx, reads, log: SILENT, telling }, carried.id, created, carried),
      );
      return recorded ? 'processed' : 'duplicate';
    }
    const canceling = (state: ProviderSubscription) => ({ ...state, cancelAtPeriodEnd: true });
    const storedState = async (id: string) => (await store().subscriptions.find(id))!;
    const recorded = async (id: string) =>
      (await db.query('SELECT 1 FROM webhook_events WHERE id = $1', [id])).length > 0;
    const outboundOf = async (owner: SubjectRef) =>
      db.query<{ type: string; body: string }>(
        'SELECT type, body FROM outbound_events WHERE subject_id = $1 ORDER BY seq',
        [owner.id],
      );
    const toldTier = async (owner: SubjectRef) =>
      (
        await db.query<{ tier: string }>(
          'SELECT tier FROM announced_subjects WHERE subject_id = $1',
          [owner.id],
        )
      )[0]?.tier;

    test('a newer event that changes nothing told: the record and the write, nothing read or told', async () => {
      const { state, owner } = await storedSubscription(`sub_newer_${outbound}`);
      const renewed = { ...state, currentPeriodEnd: new Date((STORED_AS_OF + 60 * 86_400) * 1000) };
      statements = 0;
      assert.equal(await deliver(`evt_newer_${outbound}`, STORED_AS_OF + 5, renewed), 'processed');
      assert.equal(statements, 2);
      const after = await storedState(state.id);
      assert.deepEqual(
        [after.currentPeriodEnd, after.asOf],
        [renewed.currentPeriodEnd, STORED_AS_OF + 5],
      );
      assert.ok(await recorded(`evt_newer_${outbound}`));
      assert.deepEqual(await outboundOf(owner), []);
    });

    test('a newer event that changes the tier: told in its transaction where events are recorded', async () => {
      const { state, owner } = await storedSubscription(`sub_tier_${outbound}`);
      const team = { ...state, priceId: 'price_team' };
      assert.equal(await deliver(`evt_tier_${outbound}`, STORED_AS_OF + 5, team), 'processed');
      assert.equal(await toldTier(owner), 'team');
      const events = await outboundOf(owner);
      if (outbound === 'dropped') assert.deepEqual(events, []);
      else {
        assert.deepEqual(
          events.map((e) => [e.type, JSON.parse(e.body).data.reason]),
          [['tier.changed', 'plan_change']],
        );
      }
      assert.equal(await deliver(`evt_tier_${outbound}`, STORED_AS_OF + 5, team), 'duplicate');
      assert.equal((await outboundOf(owner)).length, events.length);
    });

    test("an organisation's newer event: its seats written with the state, the seat engine told", async () => {
      const { state, owner } = await storedSubscription(`sub_org_${outbound}`, 'organization');
      const seatChanges = async () => {
        const [row] = await db.query<{ changes: string | number }>(
          'SELECT changes FROM organization_seats WHERE organization_id = $1',
          [owner.id],
        );
        return Number(row?.changes ?? 0);
      };
      const changesBefore = await seatChanges();
      await deliver(`evt_org_${outbound}`, STORED_AS_OF + 5, { ...state, quantity: 7 });
      const after = await storedState(state.id);
      assert.deepEqual([after.quantity, after.itemId, after.owner], [7, state.itemId, owner]);
      assert.equal(await seatChanges(), changesBefore + 1);
    });

    test('an older event: recorded, the stored state left alone', async () => {
      const { state } = await storedSubscription(`sub_older_${outbound}`);
      const before = await storedState(state.id);
      assert.equal(
        await deliver(`evt_older_${outbound}`, STORED_AS_OF - 5, canceling(state)),
        'processed',
      );
      assert.deepEqual(await storedState(state.id), before);
      assert.ok(await recorded(`evt_older_${outbound}`));
    });

    test('deliveries of one event racing on eight instances: written once, told once', async () => {
      const { state, owner } = await storedSubscription(`sub_raced_${outbound}`);
      const before = await storedState(state.id);
      const team = { ...state, priceId: 'price_team' };
      const answers = await Promise.all(
        Array.from({ length: 8 }, () =>
          deliver(`evt_raced_${outbound}`, STORED_AS_OF + 5, team, createEventLedger(db, outbound)),
        ),
      );
      assert.deepEqual(answers.sort(), [...Array<string>(7).fill('duplicate'), 'processed']);
      assert.equal((await storedState(state.id)).revision, before.revision + 1);
      assert.equal((await outboundOf(owner)).length, outbound === 'recorded' ? 1 : 0);
    });

    test('two newer events racing: both recorded, the newest state kept', async () => {
      const { state } = await storedSubscription(`sub_two_${outbound}`);
      const answers = await Promise.all([
        deliver(`evt_two_a_${outbound}`, STORED_AS_OF + 2, canceling(state)),
        deliver(`evt_two_b_${outbound}`, STORED_AS_OF + 3, { ...state, status: 'past_due' }),
      ]);
      assert.deepEqual(answers, ['processed', 'processed']);
      const after = await storedState(state.id);
      assert.deepEqual([after.status, after.asOf], ['past_due', STORED_AS_OF + 3]);
    });
  });
}
