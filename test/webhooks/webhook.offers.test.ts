// Webhooks for the offers: customer.subscription.trial_will_end is recorded, acknowledged and
// logged at info with its user, changing nothing; a subscription's cancel_at and trial_end are
// stored from its events, cleared by a newer one, and a same-second tie the provider cannot settle
// ranks a cancellation scheduled with cancel_at alone after none (either order, the same state).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, profileOf, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { deliver, eventOf, subscriptionObject } from '../helpers/stripe-fixtures.ts';

describe(`webhooks for trials and scheduled cancellations (${databaseLabel})`, () => {
  let t: TestApp;
  const logged: { fields: Record<string, unknown>; message: string }[] = [];
  before(async () => {
    t = await buildTestApp();
    // The service's logger is silent in tests: listen to what it is told at info.
    const logger = t.composition.logger as unknown as {
      info: (fields: Record<string, unknown>, message: string) => void;
    };
    logger.info = (fields, message) => logged.push({ fields, message });
  });
  after(() => t.close());

  const profile = (sub: string) => profileOf(t, sub);
  const row = async (id: string) =>
    (
      await t.composition.db.query<{
        status: string;
        cancel_at: Date | null;
        trial_end: Date | null;
        revision: string;
      }>('SELECT status, cancel_at, trial_end, revision FROM subscriptions WHERE id = $1', [id])
    )[0];
  const now = () => Math.floor(Date.now() / 1000);

  test('trial_will_end: processed, recorded, logged at info with the user; the stored state untouched', async () => {
    const user = await profile('will-end');
    const trialEnd = now() + 3 * 86_400;
    const subscription = subscriptionObject({
      status: 'trialing',
      trial_end: trialEnd,
      metadata: { user_id: user.id },
    });
    await deliver(
      t.app,
      eventOf('customer.subscription.created', subscription, { created: now() - 10 }),
    );
    const before = await row(subscription.id);
    assert.equal(before!.trial_end!.getTime(), trialEnd * 1000);
    const event = eventOf('customer.subscription.trial_will_end', subscription);
    const response = await deliver(t.app, event);
    assert.deepEqual(response.json(), { status: 'processed' });
    const [record] = await t.composition.db.query<{ outcome: string }>(
      'SELECT outcome FROM webhook_events WHERE id = $1',
      [event.id],
    );
    assert.equal(record!.outcome, 'processed');
    assert.deepEqual(await row(subscription.id), before);
    const line = logged.find((entry) => entry.fields.subscription === subscription.id);
    assert.equal(line?.message, 'trial ends soon');
    assert.equal(line?.fields.user, user.id);
    assert.equal(line?.fields.idpId, 'will-end');
    // As the JSON log line writes it.
    const written = JSON.parse(JSON.stringify(line?.fields ?? {})) as { trialEnd?: string };
    assert.equal(written.trialEnd, new Date(trialEnd * 1000).toISOString());
    assert.deepEqual((await deliver(t.app, event)).json(), { status: 'duplicate' });
  });

  test('trial_will_end for a customer of no user: acknowledged and logged, nothing stored', async () => {
    const subscription = subscriptionObject({ status: 'trialing', trial_end: now() + 86_400 });
    const response = await deliver(
      t.app,
      eventOf('customer.subscription.trial_will_end', subscription),
    );
    assert.deepEqual(response.json(), { status: 'processed' });
    assert.equal(await row(subscription.id), undefined);
    const line = logged.find((entry) => entry.fields.subscription === subscription.id);
    assert.equal(line?.message, 'trial ends soon, for a customer of no user');
  });

  test('cancel_at is stored from an event and cleared by a newer one; the tier holds meanwhile', async () => {
    const user = await profile('cancel-at');
    const subscription = subscriptionObject({ metadata: { user_id: user.id } });
    const cancelAt = now() + 86_400;
    const created = now() - 100;
    await deliver(t.app, eventOf('customer.subscription.created', subscription, { created }));
    await deliver(
      t.app,
      eventOf(
        'customer.subscription.updated',
        { ...subscription, cancel_at: cancelAt },
        { created: created + 10 },
      ),
    );
    assert.equal((await row(subscription.id))!.cancel_at!.getTime(), cancelAt * 1000);
    assert.equal((await profile('cancel-at')).tier, 'pro');
    await deliver(
      t.app,
      eventOf(
        'customer.subscription.updated',
        { ...subscription, cancel_at: null },
        { created: created + 20 },
      ),
    );
    assert.equal((await row(subscription.id))!.cancel_at, null);
  });

  test('a same-second tie between scheduled (cancel_at alone) and not: the scheduled one, in either order', async () => {
    for (const order of ['scheduled last', 'scheduled first']) {
      const user = await profile(`tie-${order.replace(' ', '-')}`);
      const subscription = subscriptionObject({ metadata: { user_id: user.id } });
      const created = now() - 30;
      const plain = eventOf('customer.subscription.updated', subscription, { created });
      const scheduled = eventOf(
        'customer.subscription.updated',
        { ...subscription, cancel_at: now() + 86_400 },
        { created },
      );
      for (const event of order === 'scheduled last' ? [plain, scheduled] : [scheduled, plain])
        assert.equal((await deliver(t.app, event)).statusCode, 200);
      assert.notEqual((await row(subscription.id))!.cancel_at, null, order);
    }
  });
});
