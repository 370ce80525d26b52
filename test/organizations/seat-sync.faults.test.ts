// The seat engine under faults, against the simulator behind a faulty front (the real stripe SDK,
// its retries and idempotency keys): the provider failing and throttling while members arrive; an
// instance dying with its push in flight, another taking over when its lease runs out; two
// instances syncing at once. Each time the provider ends at the desired quantity, every change it
// applied is a distinct key's, and two pushes for one organisation are never in flight together.
// The reconciliation repairs a quantity changed at the provider whose event was lost.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { reconcile } from '../../src/domain/billing/reconcile.ts';
import type { PaymentsProvider } from '../../src/domain/ports/payments-provider.ts';
import type { SeatSync } from '../../src/domain/seats/seat-sync.ts';
import { operatorDeps } from '../helpers/cli.ts';
import { databaseLabel } from '../helpers/database.ts';
import {
  buildAppWithFaultyProvider,
  type AppWithFaultyProvider,
} from '../helpers/faulty-provider.ts';
import { orgBilling, orgPost, orgSubscriptionId, seatEngine } from '../helpers/organizations.ts';
import { quantityChanges } from '../helpers/simulator-client.ts';

const UPDATE = /^\/v1\/subscriptions\/sub_[^/]+$/;

describe(`the seat engine under faults (${databaseLabel})`, () => {
  let setup: AppWithFaultyProvider;
  before(async () => {
    setup = await buildAppWithFaultyProvider();
  });
  after(() => setup.close());

  const t = () => setup.t;
  const front = () => setup.provider.front;
  const engine = (holder: string, payments?: PaymentsProvider) =>
    seatEngine(t(), holder, { quietMs: 0, maxWaitMs: 0, leaseMs: 1_500 }, payments);
  const join = (org: string, sub: string) => orgBilling(t(), sub, { org, role: 'member' });

  /** An organisation of `members` that paid (no webhooks here: a reconciliation stores it). */
  async function subscribed(org: string, members: number): Promise<string> {
    for (let i = 0; i < members; i++) await join(org, `${org}-m${i}`);
    const { url } = (await orgPost(t(), `${org}-m0`, { org, role: 'owner' }, 'checkout')).json();
    const paid = await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    assert.equal(paid.status, 303);
    await reconcile(operatorDeps(t()));
    const billing = await join(org, `${org}-m0`);
    assert.equal(billing.seats.billed, members);
    return orgSubscriptionId(t(), org);
  }
  const providerQuantity = async (id: string) =>
    (await setup.direct.subscriptions.retrieve(id)).items.data[0]!.quantity;
  /** The pushes of this subscription that reached the provider, by idempotency key. */
  const pushesOf = (id: string) =>
    front().requests.filter((r) => r.method === 'POST' && r.path === `/v1/subscriptions/${id}`);
  /** Looks (with `engines` at once) until the provider bills `quantity`, waiting out back-offs. */
  async function settle(id: string, quantity: number, engines: SeatSync[]): Promise<void> {
    const deadline = Date.now() + 30_000;
    while ((await providerQuantity(id)) !== quantity || (await outOfSync()) > 0) {
      if (Date.now() > deadline) {
        const seats = await t().composition.db.query(
          'SELECT s.*, sub.quantity, sub.status FROM organization_seats s LEFT JOIN subscriptions sub ON sub.organization_id = s.organization_id',
        );
        const state = `the provider bills ${await providerQuantity(id)}; ${JSON.stringify(seats)}`;
        throw new Error(`not at ${quantity} after 30 s: ${state}`);
      }
      await Promise.all(engines.map((e) => e.look()));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  const outOfSync = () => t().composition.store.seats.outOfSync();

  test('the provider failing and throttling while members arrive: it ends at the members, each change once', async () => {
    const id = await subscribed('stormy', 2);
    const sync = engine('stormy-engine');
    front().inject('POST', UPDATE, { kind: 'fail' }, 2);
    front().inject('POST', UPDATE, { kind: 'fail-after' }, 1);
    front().inject(
      'POST',
      UPDATE,
      {
        kind: 'reply',
        status: 429,
        body: { error: { type: 'rate_limit_error' } },
        headers: { 'retry-after': '1' },
      },
      2,
    );
    for (let i = 2; i < 6; i++) {
      await join('stormy', `stormy-m${i}`);
      await sync.look();
    }
    await settle(id, 6, [sync]);
    front().clear();
    const reached = pushesOf(id).filter((r) => r.objectId !== null || r.answered === 500);
    const keys = new Set(pushesOf(id).map((r) => r.idempotencyKey));
    const applied = await quantityChanges(setup.direct, id);
    assert.equal(applied.at(-1), 6);
    assert.ok(applied.length <= keys.size, `${applied.length} changes for ${keys.size} keys`);
    assert.equal(new Set(applied).size, applied.length, `no quantity applied twice: ${applied}`);
    assert.ok(reached.length > keys.size, 'some pushes were retried under their key');
    const metrics = await t().composition.services.scrape!.registry.metrics();
    assert.match(metrics, /^seat_updates_total\{result="failed"\} [1-9]/m);
  });

  test('an instance dying with its push in flight: another takes over when the lease runs out, same key, one change', async () => {
    const id = await subscribed('orphaned', 2);
    const real = t().composition.payments;
    // The push leaves, the provider acts on it, and its sender never hears back: as if it died.
    const dying = {
      ...real,
      updateSubscriptionQuantity: (input, key) => {
        void real.updateSubscriptionQuantity(input, key).catch(() => {});
        return new Promise(() => {});
      },
    } satisfies PaymentsProvider;
    await join('orphaned', 'orphaned-m2');
    void engine('dead-instance', dying).look();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const survivor = engine('survivor');
    assert.equal(await survivor.look(), 0, 'the lease is held');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await settle(id, 3, [survivor]);
    const keys = pushesOf(id).map((r) => r.idempotencyKey);
    assert.equal(keys.length, 2);
    assert.equal(keys[0], keys[1], 'the same revision, the same key');
    assert.deepEqual(await quantityChanges(setup.direct, id), [3], 'the provider applied it once');
  });

  test('two instances syncing at once: never two pushes in flight for one organisation, one change per key', async () => {
    const id = await subscribed('twins', 1);
    const engines = [engine('twin-a'), engine('twin-b')];
    front().inject('POST', UPDATE, { kind: 'delay', ms: 150 });
    for (let i = 1; i < 9; i++) {
      await Promise.all([join('twins', `twins-m${i}`), ...engines.map((e) => e.look())]);
    }
    await settle(id, 9, engines);
    front().clear();
    const pushes = pushesOf(id).sort((a, b) => a.at - b.at);
    for (let i = 1; i < pushes.length; i++)
      assert.ok(pushes[i]!.at >= pushes[i - 1]!.answeredAt!, 'one push in flight at a time');
    const applied = await quantityChanges(setup.direct, id);
    assert.equal(applied.at(-1), 9);
    assert.equal(applied.length, new Set(pushes.map((p) => p.idempotencyKey)).size);
  });

  test('a quantity changed at the provider whose event is lost: the reconciliation repairs it, the engine pushes it back', async () => {
    const id = await subscribed('lost-event', 4);
    const item = (await setup.direct.subscriptions.retrieve(id)).items.data[0]!;
    await setup.direct.subscriptions.update(id, { items: [{ id: item.id, quantity: 11 }] });
    const result = await reconcile(operatorDeps(t()));
    assert.ok(result.changes.some((c) => c.subscription.id === id && c.verdict === 'repaired'));
    assert.equal((await join('lost-event', 'lost-event-m0')).seats.billed, 11);
    await settle(id, 4, [engine('repairer')]);
    assert.equal((await join('lost-event', 'lost-event-m0')).seats.billed, 4);
  });
});
