// The seat engine on the embedded simulator (quantity updates with create_prorations, signed
// webhooks back): new members make one push for the lot, and the provider, the stored subscription
// and the organisation's billing follow; 3 -> 4 -> 3 -> 4 (members lapsing out of the window and
// coming back) is three changes at the provider, never a replay of an earlier key; nothing is
// pushed for a subscription that is not live; a quantity changed at the provider is pushed back.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SeatSync } from '../../src/domain/seats/seat-sync.ts';
import { buildTestApp, deliverWebhooks, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/browser.ts';
import { databaseLabel } from '../helpers/database.ts';
import { orgBilling, orgPost, orgSubscriptionId, seatEngine } from '../helpers/organizations.ts';
import {
  providerCalls,
  quantityChanges,
  resetProviderCalls,
  simulatorClient,
} from '../helpers/simulator-client.ts';

const UPDATE = 'POST /v1/subscriptions/:id';

describe(`the seat engine (${databaseLabel})`, () => {
  let t: TestApp;
  let sync: SeatSync;
  before(async () => {
    t = await buildTestApp();
    await deliverWebhooks(t);
    // The service's own engine waits for a burst to settle; this one looks at once.
    sync = seatEngine(t, 'seat-sync-test');
  });
  after(() => t.close());

  const join = (org: string, sub: string) => orgBilling(t, sub, { org, role: 'member' });
  const billing = (org: string) => orgBilling(t, `${org}-admin`, { org, role: 'admin' });
  /** An organisation of `members` (its admin among them) that bought its plan: billed for them. */
  async function subscribed(org: string, members: number): Promise<string> {
    await billing(org);
    for (let i = 1; i < members; i++) await join(org, `${org}-m${i}`);
    const { url } = (await orgPost(t, `${org}-admin`, { org, role: 'admin' }, 'checkout')).json();
    assert.equal((await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' })).status, 303);
    await until(
      () => billing(org),
      (b) => b.seats.billed === members,
    );
    await sync.look(); // the subscription's arrival marked it: in step, nothing to push
    return orgSubscriptionId(t, org);
  }
  const providerQuantity = async (id: string) =>
    (await simulatorClient(t).subscriptions.retrieve(id)).items.data[0]!.quantity;

  test('new members: one push for the lot; the provider, the stored quantity and the billing follow', async () => {
    const id = await subscribed('grow', 2);
    for (let i = 2; i < 7; i++) await join('grow', `grow-m${i}`);
    await resetProviderCalls(t);
    assert.equal(await sync.look(), 1);
    assert.equal((await providerCalls(t))[UPDATE], 1);
    assert.equal(await providerQuantity(id), 7);
    assert.deepEqual((await billing('grow')).seats, { active: 7, reported: null, billed: 7 });
    const metrics = await t.composition.services.scrape!.registry.metrics();
    assert.match(metrics, /^seat_updates_total\{result="sent"\} 1$/m);
    await resetProviderCalls(t);
    await sync.look();
    assert.equal((await providerCalls(t))[UPDATE], undefined, 'in step: nothing more');
  });

  test('3 -> 4 -> 3 -> 4: three changes at the provider, each under a key of its own', async () => {
    const id = await subscribed('flip', 3);
    await join('flip', 'flip-late');
    await sync.look();
    assert.equal(await providerQuantity(id), 4);
    await t.composition.db.query(
      `UPDATE memberships SET last_seen_at = now() - interval '31 days'
       WHERE user_id = (SELECT id FROM users WHERE idp_id = 'flip-late')`,
    );
    assert.ok((await t.composition.store.seats.markLapsed(30, 1)) >= 1);
    await sync.look();
    assert.equal(await providerQuantity(id), 3);
    await join('flip', 'flip-late'); // back after the window: counted again
    await sync.look();
    assert.equal(await providerQuantity(id), 4);
    await until(
      () => quantityChanges(simulatorClient(t), id),
      (changes) => changes.length === 3,
    );
    assert.deepEqual(await quantityChanges(simulatorClient(t), id), [4, 3, 4]);
  });

  test('nothing is pushed for a subscription that is not live', async () => {
    const id = await subscribed('ended', 2);
    await simulatorClient(t).subscriptions.cancel(id);
    await until(
      () => billing('ended'),
      (b) => b.subscription.status === 'canceled',
    );
    await join('ended', 'ended-new');
    await resetProviderCalls(t);
    await sync.look();
    assert.equal((await providerCalls(t))[UPDATE], undefined);
    assert.equal(await providerQuantity(id), 2);
  });

  test('a quantity changed at the provider comes back as an event and is pushed back', async () => {
    const id = await subscribed('drifty', 3);
    const item = (await simulatorClient(t).subscriptions.retrieve(id)).items.data[0]!;
    await simulatorClient(t).subscriptions.update(id, {
      items: [{ id: item.id, quantity: 9 }],
      proration_behavior: 'none',
    });
    await until(
      () => billing('drifty'),
      (b) => b.seats.billed === 9,
    );
    await sync.look();
    assert.equal(await providerQuantity(id), 3);
    assert.equal((await billing('drifty')).seats.billed, 3);
  });
});
