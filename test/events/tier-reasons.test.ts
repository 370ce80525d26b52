// The reasons of contract 13 that the other outbound-event tests do not produce: a subscription
// paused by the provider (not at a trial's end), the same subscription resumed, and one the provider
// gave up collecting for (`unpaid`), each made to happen by the provider's events as Stripe sends
// them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { profileOf, type TestApp, buildTestApp } from '../helpers/app.ts';
import { startAppReceiver, type AppReceiver } from '../helpers/app-receiver.ts';
import { databaseLabel } from '../helpers/database.ts';
import { tierChanges } from '../helpers/outbound-events.ts';
import { deliver, eventOf, subscriptionObject } from '../helpers/stripe-fixtures.ts';

describe(`tier.changed reasons: paused, resumed, payment_failed (${databaseLabel})`, () => {
  let t: TestApp;
  let receiver: AppReceiver;
  before(async () => {
    receiver = await startAppReceiver();
    t = await buildTestApp({ APP_WEBHOOK_URL: receiver.url, APP_WEBHOOK_SECRET: receiver.secret });
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  /** The subscription stored by its creation, and the seconds its next events are created at. */
  async function subscribed(name: string) {
    await t.composition.db.query('DELETE FROM outbound_events');
    const user = await profileOf(t, name);
    const subscription = subscriptionObject({ metadata: { user_id: user.id } });
    const created = Math.floor(Date.now() / 1000);
    await deliver(t.app, eventOf('customer.subscription.created', subscription, { created }));
    return { subscription, next: (step: number) => ({ created: created + step }) };
  }

  test('a paid subscription the provider pauses, then resumes: reason paused, then resumed', async () => {
    const { subscription, next } = await subscribed('pauser');
    const paused = { ...subscription, status: 'paused' as const };
    // Stripe sends customer.subscription.updated beside .paused and .resumed: the service acts on it.
    await deliver(t.app, eventOf('customer.subscription.updated', paused, next(1)));
    await deliver(t.app, eventOf('customer.subscription.updated', subscription, next(2)));
    assert.deepEqual(await tierChanges(t), [
      { from: 'free', to: 'pro', reason: 'checkout' },
      { from: 'pro', to: 'free', reason: 'paused' },
      { from: 'free', to: 'pro', reason: 'resumed' },
    ]);
  });

  test('a subscription whose payments failed until the provider marked it unpaid: reason payment_failed', async () => {
    const { subscription, next } = await subscribed('unpaid');
    const pastDue = { ...subscription, status: 'past_due' as const };
    await deliver(t.app, eventOf('customer.subscription.updated', pastDue, next(1)));
    const unpaid = { ...subscription, status: 'unpaid' as const };
    await deliver(t.app, eventOf('customer.subscription.updated', unpaid, next(2)));
    assert.deepEqual(await tierChanges(t), [
      { from: 'free', to: 'pro', reason: 'checkout' },
      { from: 'pro', to: 'free', reason: 'payment_failed' },
    ]);
  });
});
