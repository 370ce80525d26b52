// After a burst of redeliveries (a replay) the service reads first: redeliveries are still answered
// `duplicate` without a second effect, and new events, alone or racing with their own
// redeliveries, are still processed exactly once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { deliver, eventOf, subscriptionObject } from '../helpers/stripe-fixtures.ts';
import { SUBSCRIPTION_WRITE_AUDIT } from '../helpers/write-audit.ts';

describe(`webhook redelivery burst (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
    await t.composition.db.exec(SUBSCRIPTION_WRITE_AUDIT);
  });
  after(() => t.close());

  const userId = async (sub: string) => (await t.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(await t.token(sub)) })).json().id as string;
  const statuses = async (deliveries: ReturnType<typeof deliver>[]) => (await Promise.all(deliveries)).map((r) => (r.statusCode === 200 ? r.json().status : r.statusCode)).sort();
  const writes = async (subscriptionId: string) => (await t.composition.db.query('SELECT 1 FROM subscription_writes WHERE subscription_id = $1', [subscriptionId])).length;

  test('a replay, then new events racing with their redeliveries: every event applied once', async () => {
    const replayedSubscription = subscriptionObject({ metadata: { user_id: await userId('replay-a') } });
    const replayed = eventOf('customer.subscription.created', replayedSubscription);
    assert.deepEqual(await statuses([deliver(t.app, replayed)]), ['processed']);
    for (let i = 0; i < 40; i++) assert.deepEqual(await statuses([deliver(t.app, replayed)]), ['duplicate']);
    assert.equal(await writes(replayedSubscription.id), 1);

    const owner = await userId('replay-b');
    for (let round = 0; round < 30; round++) {
      const subscription = subscriptionObject({ metadata: { user_id: owner } });
      const fresh = eventOf('customer.subscription.created', subscription);
      assert.deepEqual(await statuses(Array.from({ length: 4 }, () => deliver(t.app, fresh))), ['duplicate', 'duplicate', 'duplicate', 'processed']);
      assert.equal(await writes(subscription.id), 1);
    }
    assert.deepEqual(await statuses([deliver(t.app, replayed)]), ['duplicate']);
  });
});
