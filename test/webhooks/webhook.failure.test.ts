// Handler failure: the handler's writes and the event record roll back together, the answer is
// 500 (so the provider retries), the failure is logged outside the transaction, and the next
// delivery processes the event. The failure is real: a database trigger refuses the write.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { deliver, eventOf, subscriptionObject } from '../helpers/stripe-fixtures.ts';

describe(`webhook handler failure (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
    await t.composition.db.exec(`
      CREATE FUNCTION refuse_subscription() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'injected failure'; END $$;
      CREATE TRIGGER refuse_subscription BEFORE INSERT ON subscriptions FOR EACH ROW EXECUTE FUNCTION refuse_subscription();`);
  });
  after(() => t.close());

  test('a throwing handler leaves no record and none of its writes, and the retry succeeds', async () => {
    const token = await t.token('rita');
    const user = (
      await t.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(token) })
    ).json();
    const subscription = subscriptionObject({ metadata: { user_id: user.id } });
    const event = eventOf('customer.subscription.created', subscription);

    const failed = await deliver(t.app, event);
    assert.equal(failed.statusCode, 500);
    assert.deepEqual(failed.json(), { detail: 'Internal Server Error' });
    const db = t.composition.db;
    assert.deepEqual(await db.query('SELECT id FROM webhook_events WHERE id = $1', [event.id]), []);
    // The handler linked the customer before the refused insert: that write is rolled back too.
    const [linked] = await db.query<{ payments_customer_id: string | null }>(
      'SELECT payments_customer_id FROM users WHERE id = $1',
      [user.id],
    );
    assert.equal(linked!.payments_customer_id, null);
    const failures = await db.query<{ error: string }>(
      'SELECT error FROM webhook_failures WHERE event_id = $1',
      [event.id],
    );
    assert.equal(failures.length, 1);
    assert.match(failures[0]!.error, /injected failure/);

    await db.exec('DROP TRIGGER refuse_subscription ON subscriptions');
    const retried = await deliver(t.app, event);
    assert.deepEqual(retried.json(), { status: 'processed' });
    assert.equal(
      (await db.query('SELECT id FROM subscriptions WHERE id = $1', [subscription.id])).length,
      1,
    );
    const profile = (
      await t.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(token) })
    ).json();
    assert.equal(profile.tier, 'pro');
  });
});
