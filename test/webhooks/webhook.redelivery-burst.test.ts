// After a burst of redeliveries (a replay) the service reads first: redeliveries are still answered
// `duplicate` without a second effect, and new events, alone or racing with their own
// redeliveries, are still processed exactly once. In normal traffic nothing reads first.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { deliver, eventOf, subscriptionObject } from '../helpers/stripe-fixtures.ts';
import { SUBSCRIPTION_WRITE_AUDIT } from '../helpers/write-audit.ts';

describe(`webhook redelivery burst (${databaseLabel})`, () => {
  let t: TestApp;
  // Reads that come before any transaction, counted around the real repository.
  let readsFirst = 0;
  before(async () => {
    t = await buildTestApp();
    await t.composition.db.exec(SUBSCRIPTION_WRITE_AUDIT);
    const events = t.composition.services.store.webhookEvents;
    const isRecorded = events.isRecorded.bind(events);
    events.isRecorded = (id) => {
      readsFirst++;
      return isRecorded(id);
    };
  });
  after(() => t.close());

  const userId = async (sub: string) => (await t.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(await t.token(sub)) })).json().id as string;
  const statuses = async (deliveries: ReturnType<typeof deliver>[]) => (await Promise.all(deliveries)).map((r) => (r.statusCode === 200 ? r.json().status : r.statusCode)).sort();
  const writes = async (subscriptionId: string) => (await t.composition.db.query('SELECT 1 FROM subscription_writes WHERE subscription_id = $1', [subscriptionId])).length;
  const newEvent = (userId: string) => {
    const subscription = subscriptionObject({ metadata: { user_id: userId } });
    return { subscription, event: eventOf('customer.subscription.created', subscription) };
  };

  test('normal traffic, new events only: straight into the transaction, no read first', async () => {
    const owner = await userId('steady');
    for (let i = 0; i < 20; i++) assert.deepEqual(await statuses([deliver(t.app, newEvent(owner).event)]), ['processed']);
    assert.equal(readsFirst, 0);
  });

  test('a replay, then new events racing with their redeliveries: every event applied once', async () => {
    const replayed = newEvent(await userId('replay-a'));
    assert.deepEqual(await statuses([deliver(t.app, replayed.event)]), ['processed']);
    for (let i = 0; i < 40; i++) assert.deepEqual(await statuses([deliver(t.app, replayed.event)]), ['duplicate']);
    assert.equal(await writes(replayed.subscription.id), 1);
    assert.ok(readsFirst >= 20, `the replay switched to reading first (${readsFirst} reads)`);

    const owner = await userId('replay-b');
    for (let round = 0; round < 30; round++) {
      const fresh = newEvent(owner);
      assert.deepEqual(await statuses(Array.from({ length: 4 }, () => deliver(t.app, fresh.event))), ['duplicate', 'duplicate', 'duplicate', 'processed']);
      assert.equal(await writes(fresh.subscription.id), 1);
    }
    assert.deepEqual(await statuses([deliver(t.app, replayed.event)]), ['duplicate']);
    assert.ok(readsFirst >= 20 + 30 * 4, `still reading first (${readsFirst} reads)`);
  });
});
