// Outbound events at the edges of what was told: subjects billed while no events were recorded (or
// before an upgrade recorded them as unknown), the clock's look at them, and at a subject with more
// than one live subscription. Provider events are delivered as Stripe would (signed fixtures).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createOutbox } from '../../src/adapters/database/outbox.ts';
import { profileOf, type TestApp, buildTestApp } from '../helpers/app.ts';
import { startAppReceiver, type AppReceiver } from '../helpers/app-receiver.ts';
import { databaseLabel } from '../helpers/database.ts';
import { clockLook, tierChanges } from '../helpers/outbound-events.ts';
import { deliver, eventOf, subscriptionObject } from '../helpers/stripe-fixtures.ts';

describe(`outbound events of subjects not yet told (${databaseLabel})`, () => {
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
  beforeEach(() => t.composition.db.query('DELETE FROM outbound_events'));

  const eventCount = async () =>
    (
      await t.composition.db.query<{ n: number }>('SELECT count(*)::int AS n FROM outbound_events')
    )[0]!.n;
  /** A subject billed pro while no events were recorded: no record of what it was told. */
  const billedUntold = async (idpId: string) => {
    const user = await profileOf(t, idpId);
    const created = Math.floor(Date.now() / 1000);
    const subscription = subscriptionObject({ metadata: { user_id: user.id } });
    await deliver(t.app, eventOf('customer.subscription.created', subscription, { created }));
    await t.composition.db.query('DELETE FROM announced_subjects WHERE subject_id = $1', [user.id]);
    await t.composition.db.query('DELETE FROM outbound_events');
    return { user, subscription, created };
  };
  const toldTier = async (subjectId: string) =>
    (
      await t.composition.db.query<{ tier: string | null }>(
        'SELECT tier FROM announced_subjects WHERE subject_id = $1',
        [subjectId],
      )
    )[0]?.tier;

  test('a subject billed while events were off is recorded by the clock without an event', async () => {
    const { user } = await billedUntold('una');
    await clockLook(t, 0);
    assert.equal(await eventCount(), 0, 'not told a resumption it never had');
    assert.equal(await toldTier(user.id), 'pro');
  });

  test('a subject billed while events were off is told no change by an update that changes nothing', async () => {
    const { subscription, created } = await billedUntold('uma');
    const renamed = { ...subscription, metadata: { ...subscription.metadata, note: 'x' } };
    await deliver(
      t.app,
      eventOf('customer.subscription.updated', renamed, { created: created + 1 }),
    );
    assert.equal(await eventCount(), 0);
  });

  test('a subject left unknown by an upgrade is told a real change the next write makes', async () => {
    const { user, subscription, created } = await billedUntold('ula');
    await t.composition.db.query(
      'INSERT INTO announced_subjects (subject_type, subject_id) VALUES ($1, $2)',
      ['user', user.id],
    );
    const deleted = { ...subscription, status: 'canceled' as const };
    await deliver(
      t.app,
      eventOf('customer.subscription.deleted', deleted, { created: created + 1 }),
    );
    assert.deepEqual(await tierChanges(t), [{ from: 'pro', to: 'free', reason: 'canceled' }]);
  });

  test("the clock's look records every subject an upgrade left unknown, however many", async () => {
    await t.composition.db.query(
      `WITH made AS (INSERT INTO users (idp_id, email)
         SELECT 'unknown-' || n, 'unknown-' || n || '@example.com' FROM generate_series(1, 600) n
         RETURNING id)
       INSERT INTO announced_subjects (subject_type, subject_id) SELECT 'user', id FROM made`,
    );
    await clockLook(t, 0);
    const [left] = await t.composition.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM announced_subjects a JOIN users u ON u.id = a.subject_id
       WHERE a.tier IS NULL`,
    );
    assert.equal(left!.n, 0);
    assert.equal(await eventCount(), 0);
  });

  test("the clock passes over an older live subscription's end when a newer one decides the tier", async () => {
    const user = await profileOf(t, 'uli');
    const created = Math.floor(Date.now() / 1000);
    const ending = subscriptionObject({
      metadata: { user_id: user.id },
      cancel_at: created + 600,
      created: created - 120,
    });
    const deciding = subscriptionObject({ metadata: { user_id: user.id }, created: created - 60 });
    await deliver(t.app, eventOf('customer.subscription.created', ending, { created }));
    await deliver(
      t.app,
      eventOf('customer.subscription.created', deciding, { created: created + 1 }),
    );
    const later = new Date(Date.now() + 3_600_000);
    const due = await createOutbox(t.composition.db, 'free').passedEnds(later, 7, 500);
    assert.equal(due.filter((ref) => ref.id === user.id).length, 0, 'not looked at forever');
    await clockLook(t, 3_600_000);
    assert.equal(await toldTier(user.id), 'pro');
  });
});
