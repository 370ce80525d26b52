// Migration 018 (what a subscription's write sets off done by the code, not by triggers) on a
// database an earlier release filled: every row is kept, the triggers are gone, and the code marks
// what they marked: a subject's first subscription (one trial, ever) and an organisation's seats.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { migrate } from '../../src/adapters/database/migrate.ts';
import { createStore } from '../../src/adapters/database/store.ts';
import type { EventPolicy } from '../../src/domain/events/subject-changes.ts';
import { subscriptionWritten } from '../../src/domain/webhooks/subscription-written.ts';
import { databaseLabel, migratedBefore, type OpenTestDatabase } from '../helpers/database.ts';

const ANN = '00000000-0000-4000-8000-000000000001';
const BEA = '00000000-0000-4000-8000-000000000002';
const ORG = '00000000-0000-4000-8000-0000000000a1';

describe(`migration 018, subscription writes in code (${databaseLabel})`, () => {
  let database: OpenTestDatabase & { next: string[] };
  before(async () => {
    database = await migratedBefore('018');
    await database.db.exec(`
      INSERT INTO users (id, idp_id, email) VALUES ('${ANN}', 'ann', 'ann@example.com'),
        ('${BEA}', 'bea', 'bea@example.com');
      INSERT INTO organizations (id, issuer, idp_org_id) VALUES ('${ORG}', 'https://issuer.example', 'org_1');
      INSERT INTO subscriptions (id, customer_id, status, price_id, cancel_at_period_end, as_of,
          user_id, created_at)
        VALUES ('sub_ann', 'cus_ann', 'active', 'price_pro', false, 100, '${ANN}', '2026-10-01T00:00:00Z');`);
  });
  after(() => database.close());

  const firstSubscribed = async (table: string, id: string) =>
    (
      await database.db.query<{ at: Date | null }>(
        `SELECT first_subscription_at AS at FROM ${table} WHERE id = $1`,
        [id],
      )
    )[0]?.at ?? null;

  test('applies after the earlier ones; the rows are kept, the triggers are gone', async () => {
    assert.deepEqual(await migrate(database.db), database.next);
    assert.deepEqual(
      (await firstSubscribed('users', ANN))?.toISOString(),
      '2026-10-01T00:00:00.000Z',
      'marked by the trigger before the upgrade, kept',
    );
    const triggers = await database.db.query<{ name: string }>(
      `SELECT tgname AS name FROM pg_trigger WHERE NOT tgisinternal ORDER BY tgname`,
    );
    assert.deepEqual(
      triggers.map((t) => t.name),
      ['organizations_customer_unshared', 'users_customer_unshared'],
    );
  });

  test("the code marks a subject's first subscription and queues an organisation's seats", async () => {
    const store = createStore(database.db, 'dropped');
    const state = (id: string, owner: { type: 'user' | 'organization'; id: string }) => ({
      id,
      customerId: `cus_${id}`,
      status: 'active' as const,
      priceId: 'price_pro',
      itemId: 'si_1',
      quantity: 3,
      cancelAtPeriodEnd: false,
      cancelAt: null,
      currentPeriodEnd: null,
      trialEnd: null,
      createdAt: new Date('2026-11-01T00:00:00Z'),
      owner,
      paymentFailedAt: null,
      asOf: 200,
    });
    const policy: EventPolicy = {
      tierByPrice: new Map([['price_pro', 'pro']]),
      intervalByPrice: new Map(),
      graceDays: 7,
    };
    const telling = { policy, cause: null, now: new Date('2026-11-01T00:00:00Z') };
    await store.transaction(async (tx) => {
      for (const [id, owner] of [
        ['sub_bea', { type: 'user', id: BEA }],
        ['sub_org', { type: 'organization', id: ORG }],
      ] as const) {
        const after = state(id, owner);
        assert.equal(await tx.subscriptions.insert(after), true);
        await subscriptionWritten(tx, { before: null, after }, telling);
      }
    });
    assert.equal((await firstSubscribed('users', BEA))?.toISOString(), '2026-11-01T00:00:00.000Z');
    assert.equal(
      (await firstSubscribed('organizations', ORG))?.toISOString(),
      '2026-11-01T00:00:00.000Z',
    );
    const [seats] = await database.db.query<{ changes: string; pending: boolean }>(
      `SELECT changes::text, pending_since IS NOT NULL AS pending FROM organization_seats WHERE organization_id = $1`,
      [ORG],
    );
    assert.deepEqual(seats, { changes: '1', pending: true });
  });
});
