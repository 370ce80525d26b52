// Outbound events: exactly one per change of a subject's tier, written in the transaction of the
// change, and delivered signed to a real HTTP receiver that verifies with the `standardwebhooks`
// package. Provider events are delivered as Stripe would (signed fixtures).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createEventLedger } from '../../src/adapters/database/event-ledger.ts';
import { createOutbox } from '../../src/adapters/database/outbox.ts';
import { createHttpSender } from '../../src/adapters/events/http-sender.ts';
import { applyListing } from '../../src/domain/billing/provider-listing.ts';
import { syncUser } from '../../src/domain/billing/sync-user.ts';
import { DeliveryWorker } from '../../src/domain/events/delivery-worker.ts';
import { forgetExpired } from '../../src/domain/schedule/retention.ts';
import type { ProviderSubscription } from '../../src/domain/model/subscriptions.ts';
import { profileOf, type TestApp, buildTestApp } from '../helpers/app.ts';
import { startAppReceiver, type AppReceiver } from '../helpers/app-receiver.ts';
import { operatorDeps, payWhileUnreachable } from '../helpers/cli.ts';
import { databaseLabel } from '../helpers/database.ts';
import { orgBilling } from '../helpers/organizations.ts';
import { clockLook, tierChanges } from '../helpers/outbound-events.ts';
import { deliver, eventOf, subscriptionObject } from '../helpers/stripe-fixtures.ts';

const SILENT = { debug() {}, info() {}, warn() {}, error() {} };

interface EventRow {
  id: string;
  type: string;
  body: string;
  state: string;
}

describe(`outbound events (${databaseLabel})`, () => {
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
  beforeEach(async () => {
    await t.composition.db.query('DELETE FROM outbound_events');
    receiver.arrivals.length = 0;
    receiver.answers.length = 0;
    receiver.delays.length = 0;
  });

  const events = () =>
    t.composition.db.query<EventRow>(
      'SELECT id, type, body, state FROM outbound_events ORDER BY seq',
    );
  /** A worker of its own, as another instance's, on a clock `shiftMs` ahead. */
  const worker = (holder: string, shiftMs = () => 0, timeoutMs?: number) =>
    new DeliveryWorker({
      outbox: createOutbox(t.composition.db, 'free'),
      sender: createHttpSender(
        { url: () => receiver.url, secrets: () => [receiver.secret] },
        timeoutMs,
      ),
      holder,
      log: SILENT,
      clock: () => new Date(Date.now() + shiftMs()),
    });

  test('a checkout is told once, signed: tier.changed free to pro, reason checkout', async () => {
    const user = await profileOf(t, 'ada');
    const subscription = subscriptionObject({ metadata: { user_id: user.id } });
    assert.equal(
      (await deliver(t.app, eventOf('customer.subscription.created', subscription))).statusCode,
      200,
    );
    assert.deepEqual(await tierChanges(t), [{ from: 'free', to: 'pro', reason: 'checkout' }]);
    assert.equal(await t.composition.jobs.deliveries!.deliverDue(), 1);
    assert.equal(receiver.arrivals.length, 1);
    const [arrival] = receiver.arrivals;
    assert.equal(arrival!.payload.type, 'tier.changed');
    assert.deepEqual(arrival!.payload.data.subject, { type: 'user', id: user.id, idp_id: 'ada' });
    assert.equal(arrival!.id, (await events())[0]!.id);
    assert.deepEqual(
      (await events()).map((e) => e.state),
      ['delivered'],
    );
  });

  test('the same provider event delivered 20 times at once gives one event', async () => {
    const user = await profileOf(t, 'bea');
    const event = eventOf(
      'customer.subscription.created',
      subscriptionObject({ metadata: { user_id: user.id } }),
    );
    const answers = await Promise.all(Array.from({ length: 20 }, () => deliver(t.app, event)));
    assert.deepEqual([...new Set(answers.map((a) => a.statusCode))], [200]);
    assert.equal((await tierChanges(t)).length, 1);
  });

  test('a change rolled back sends nothing: the handler fails after the event was written', async () => {
    const user = await profileOf(t, 'cal');
    const event = eventOf(
      'customer.subscription.created',
      subscriptionObject({ metadata: { user_id: user.id } }),
    );
    await t.composition.db.exec(`CREATE FUNCTION refuse_record() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN RAISE EXCEPTION 'refused for the test'; END $$;
      CREATE TRIGGER refuse_record BEFORE INSERT ON webhook_events FOR EACH ROW
      WHEN (NEW.id = '${event.id}') EXECUTE FUNCTION refuse_record();`);
    try {
      assert.equal((await deliver(t.app, event)).statusCode, 500);
      assert.deepEqual(await events(), []);
    } finally {
      await t.composition.db.exec(
        'DROP TRIGGER refuse_record ON webhook_events; DROP FUNCTION refuse_record();',
      );
    }
    assert.equal((await deliver(t.app, event)).statusCode, 200);
    assert.equal((await tierChanges(t)).length, 1, 'the provider retries: then it is told, once');
  });

  test('a reconciliation repairing a lost cancellation gives one event, reason reconciled', async () => {
    const user = await profileOf(t, 'dan');
    const subscription = subscriptionObject({ metadata: { user_id: user.id } });
    await deliver(t.app, eventOf('customer.subscription.created', subscription));
    await t.composition.db.query('DELETE FROM outbound_events');
    // The deletion event was lost; the provider's listing says canceled.
    const listed: ProviderSubscription = {
      id: subscription.id,
      customerId: subscription.customer as string,
      status: 'canceled',
      priceId: 'price_sim_pro',
      itemId: null,
      quantity: 1,
      cancelAtPeriodEnd: false,
      cancelAt: null,
      currentPeriodEnd: null,
      trialEnd: null,
      createdAt: new Date(subscription.created * 1000),
      metadataUserId: user.id,
      metadataOrgId: null,
    };
    const read = { value: [listed], readAt: Math.floor(Date.now() / 1000) + 5 };
    const deps = { store: t.composition.store, log: SILENT, policy: t.composition.policy };
    const [change] = await applyListing(deps, read);
    assert.equal(change!.verdict, 'repaired');
    await applyListing(deps, read);
    assert.deepEqual(await tierChanges(t), [{ from: 'pro', to: 'free', reason: 'reconciled' }]);
  });

  test("an operator's sync-user storing what the provider says is told with reason operator", async () => {
    await payWhileUnreachable(t, 'syd');
    await syncUser(operatorDeps(t), 'syd');
    assert.deepEqual(await tierChanges(t), [{ from: 'free', to: 'pro', reason: 'operator' }]);
  });

  test('a receiver answering 500, then 200, gets the same webhook-id and body twice', async () => {
    const user = await profileOf(t, 'eve');
    await deliver(
      t.app,
      eventOf(
        'customer.subscription.created',
        subscriptionObject({ metadata: { user_id: user.id } }),
      ),
    );
    receiver.answers.push(500);
    let shift = 0;
    const w = worker('instance-a', () => shift);
    assert.equal(await w.deliverDue(), 1);
    assert.deepEqual(
      (await events()).map((e) => e.state),
      ['pending'],
    );
    assert.equal(await w.deliverDue(), 0, 'not before its retry time');
    shift = 60_000;
    assert.equal(await w.deliverDue(), 1);
    const [first, second] = receiver.arrivals;
    assert.equal(receiver.arrivals.length, 2);
    assert.equal(first!.id, second!.id);
    assert.equal(first!.body, second!.body);
    assert.deepEqual(
      (await events()).map((e) => e.state),
      ['delivered'],
    );
    const log = await t.composition.db.query<{ status: number }>(
      'SELECT status FROM outbound_deliveries ORDER BY attempt',
    );
    assert.deepEqual(
      log.map((row) => row.status),
      [500, 204],
    );
  });

  test('a receiver too slow to answer in time gets the event again, the same id and body', async () => {
    const user = await profileOf(t, 'mia');
    await deliver(
      t.app,
      eventOf(
        'customer.subscription.created',
        subscriptionObject({ metadata: { user_id: user.id } }),
      ),
    );
    receiver.delays.push(1_000);
    let shift = 0;
    // The 15 s of an attempt, scaled down to 300 ms.
    const w = worker('instance-a', () => shift, 300);
    assert.equal(await w.deliverDue(), 1);
    const [attempt] = await t.composition.db.query<{ status: number | null; answer: string }>(
      'SELECT status, answer FROM outbound_deliveries',
    );
    assert.deepEqual(attempt, { status: null, answer: 'no answer within 0.3 s' });
    shift = 60_000;
    assert.equal(await w.deliverDue(), 1);
    assert.deepEqual(
      (await events()).map((e) => e.state),
      ['delivered'],
    );
    const [first, second] = receiver.arrivals;
    assert.equal(first!.id, second!.id);
    assert.equal(first!.body, second!.body);
  });

  test('an instance that dies after sending, before recording, leaves the event to another: same id', async () => {
    const user = await profileOf(t, 'ned');
    await deliver(
      t.app,
      eventOf(
        'customer.subscription.created',
        subscriptionObject({ metadata: { user_id: user.id } }),
      ),
    );
    // The dead instance took the lease and sent, then never recorded the answer.
    const outbox = createOutbox(t.composition.db, 'free');
    const [taken] = await outbox.claim('dead-instance', new Date(), 60_000, 10);
    assert.equal(await worker('instance-b').deliverDue(), 0, 'its lease holds meanwhile');
    assert.equal(await worker('instance-b', () => 61_000).deliverDue(), 1);
    assert.deepEqual(
      receiver.arrivals.map((a) => a.id),
      [taken!.id],
    );
    assert.equal(receiver.arrivals[0]!.body, taken!.body);
    assert.deepEqual(
      (await events()).map((e) => e.state),
      ['delivered'],
    );
  });

  test("a subject's events arrive in order; another subject's are not held up meanwhile", async () => {
    const [fay, gus] = [await profileOf(t, 'fay'), await profileOf(t, 'gus')];
    const created = Math.floor(Date.now() / 1000);
    const mine = subscriptionObject({ metadata: { user_id: fay.id } });
    await deliver(t.app, eventOf('customer.subscription.created', mine, { created }));
    await deliver(
      t.app,
      eventOf(
        'customer.subscription.updated',
        { ...mine, items: subscriptionObject({ id: mine.id, priceId: 'price_sim_team' }).items },
        { created: created + 1 },
      ),
    );
    await deliver(
      t.app,
      eventOf(
        'customer.subscription.deleted',
        { ...mine, status: 'canceled' },
        { created: created + 2 },
      ),
    );
    assert.deepEqual(
      (await tierChanges(t)).map((c) => `${c.from}>${c.to}`),
      ['free>pro', 'pro>team', 'team>free'],
    );
    receiver.answers.push(500); // fay's first event fails once
    let shift = 0;
    const w = worker('instance-a', () => shift);
    await w.deliverDue();
    await deliver(
      t.app,
      eventOf(
        'customer.subscription.created',
        subscriptionObject({ metadata: { user_id: gus.id } }),
      ),
    );
    await w.deliverDue();
    assert.deepEqual(
      receiver.arrivals.map((a) => a.payload.data.subject.idp_id),
      ['fay', 'gus'],
      "gus's event went while fay's first waited for its retry, and fay's next waited behind it",
    );
    shift = 60_000;
    while ((await w.deliverDue()) > 0);
    const fays = receiver.arrivals.filter((a) => a.payload.data.subject.idp_id === 'fay');
    assert.deepEqual(
      fays.map((a) => `${a.payload.data.from}>${a.payload.data.to}`),
      ['free>pro', 'free>pro', 'pro>team', 'team>free'],
    );
  });

  test("a resent event is retried afresh, 5 s first, and holds up none of its subject's newer events", async () => {
    const user = await profileOf(t, 'rex');
    const created = Math.floor(Date.now() / 1000);
    const subscription = subscriptionObject({ metadata: { user_id: user.id } });
    await deliver(t.app, eventOf('customer.subscription.created', subscription, { created }));
    const w = worker('instance-a');
    assert.equal(await w.deliverDue(), 1);
    const [checkout] = await events();
    assert.equal(
      await createOutbox(t.composition.db, 'free').resend(checkout!.id, new Date()),
      true,
    );
    receiver.answers.push(500);
    assert.equal(await w.deliverDue(), 1);
    const [retry] = await t.composition.db.query<{ next_attempt_at: Date }>(
      'SELECT next_attempt_at FROM outbound_events WHERE id = $1',
      [checkout!.id],
    );
    assert.ok(
      retry!.next_attempt_at.getTime() - Date.now() < 10_000,
      'the first wait, not the second',
    );
    const team = {
      ...subscription,
      items: subscriptionObject({ id: subscription.id, priceId: 'price_sim_team' }).items,
    };
    await deliver(t.app, eventOf('customer.subscription.updated', team, { created: created + 1 }));
    assert.equal(await w.deliverDue(), 1);
    assert.deepEqual(
      receiver.arrivals.map((a) => `${a.payload.data.from}>${a.payload.data.to}`),
      ['free>pro', 'free>pro', 'pro>team'],
    );
  });

  test('a scheduled end passing with no provider event is told once, reason scheduled_end', async () => {
    const user = await profileOf(t, 'hal');
    const cancelAt = Math.floor(Date.now() / 1000) + 600;
    const subscription = subscriptionObject({
      metadata: { user_id: user.id },
      cancel_at: cancelAt,
    });
    await deliver(t.app, eventOf('customer.subscription.created', subscription));
    await clockLook(t, 0);
    assert.deepEqual(await tierChanges(t), [{ from: 'free', to: 'pro', reason: 'checkout' }]);
    await clockLook(t, 3_600_000);
    await clockLook(t, 3_600_000);
    const deleted = { ...subscription, status: 'canceled' as const, ended_at: cancelAt };
    await deliver(
      t.app,
      eventOf('customer.subscription.deleted', deleted, { created: cancelAt + 1 }),
    );
    assert.deepEqual(await tierChanges(t), [
      { from: 'free', to: 'pro', reason: 'checkout' },
      { from: 'pro', to: 'free', reason: 'scheduled_end' },
    ]);
  });

  test('a failed payment is told with its grace end; the grace end passing, reason grace_ended', async () => {
    const user = await profileOf(t, 'ian');
    const subscription = subscriptionObject({ metadata: { user_id: user.id } });
    const created = Math.floor(Date.now() / 1000);
    await deliver(t.app, eventOf('customer.subscription.created', subscription, { created }));
    const pastDue = { ...subscription, status: 'past_due' as const };
    await deliver(
      t.app,
      eventOf('customer.subscription.updated', pastDue, { created: created + 1 }),
    );
    const [, failed] = await events();
    assert.equal(failed!.type, 'payment.failed');
    const graceUntil = new Date((created + 1) * 1000 + 7 * 86_400_000).toISOString();
    assert.equal(JSON.parse(failed!.body).data.grace_until, graceUntil);
    await clockLook(t, 6 * 86_400_000);
    assert.equal((await tierChanges(t)).length, 1, 'still within its grace period');
    await clockLook(t, 8 * 86_400_000);
    assert.deepEqual(await tierChanges(t), [
      { from: 'free', to: 'pro', reason: 'checkout' },
      { from: 'pro', to: 'free', reason: 'grace_ended' },
    ]);
  });

  test('delivered events and their attempts are kept as long as the webhook records, then go', async () => {
    const [jo, kai] = [await profileOf(t, 'jo'), await profileOf(t, 'kai')];
    await deliver(
      t.app,
      eventOf(
        'customer.subscription.created',
        subscriptionObject({ metadata: { user_id: jo.id } }),
      ),
    );
    await t.composition.jobs.deliveries!.deliverDue();
    await deliver(
      t.app,
      eventOf(
        'customer.subscription.created',
        subscriptionObject({ metadata: { user_id: kai.id } }),
      ),
    );
    const forget = (aheadDays: number) =>
      forgetExpired(
        {
          ledger: createEventLedger(t.composition.db, 'recorded'),
          limits: null,
          outbox: createOutbox(t.composition.db, 'free'),
          metrics: t.composition.services.metrics,
          now: () => Date.now() + aheadDays * 86_400_000,
        },
        t.config.retentionDays,
        new AbortController().signal,
      );
    assert.equal((await forget(30)).outboundEvents, 0);
    assert.equal((await forget(40)).outboundEvents, 1);
    assert.deepEqual(
      (await events()).map((e) => e.state),
      ['pending'],
      'a pending one stays',
    );
    const [attempts] = await t.composition.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM outbound_deliveries',
    );
    assert.equal(attempts!.n, 0);
  });

  test("the provider's notice that a trial ends soon is told once, with the trial's end", async () => {
    const user = await profileOf(t, 'lea');
    const trialEnd = Math.floor(Date.now() / 1000) + 3 * 86_400;
    const trialing = subscriptionObject({
      metadata: { user_id: user.id },
      status: 'trialing',
      trial_end: trialEnd,
    });
    const notice = eventOf('customer.subscription.trial_will_end', trialing);
    await deliver(t.app, notice);
    await deliver(t.app, notice);
    const told = (await events()).filter((e) => e.type === 'trial.will_end');
    assert.equal(told.length, 1);
    assert.equal(JSON.parse(told[0]!.body).data.trial_end, new Date(trialEnd * 1000).toISOString());
  });

  test('a trial already over is not announced as ending soon, by its notice or by a newer state', async () => {
    const now = Math.floor(Date.now() / 1000);
    const ended = await profileOf(t, 'ended-trial');
    const endedAtOnce = subscriptionObject({
      metadata: { user_id: ended.id },
      status: 'trialing',
      trial_end: now,
    });
    await deliver(t.app, eventOf('customer.subscription.trial_will_end', endedAtOnce));
    const late = await profileOf(t, 'late-notice');
    const trialing = subscriptionObject({
      metadata: { user_id: late.id },
      status: 'trialing',
      trial_end: now + 3 * 86_400,
    });
    const canceled = { ...trialing, status: 'canceled' as const };
    await deliver(t.app, eventOf('customer.subscription.deleted', canceled, { created: now }));
    await deliver(
      t.app,
      eventOf('customer.subscription.trial_will_end', trialing, { created: now - 5 }),
    );
    assert.deepEqual(
      (await events()).filter((e) => e.type === 'trial.will_end'),
      [],
    );
  });

  test('a cancellation set for the period end, then ended by the provider: reason scheduled_end', async () => {
    const user = await profileOf(t, 'period-ender');
    const created = Math.floor(Date.now() / 1000);
    const active = subscriptionObject({ metadata: { user_id: user.id } });
    await deliver(t.app, eventOf('customer.subscription.created', active, { created }));
    const setToEnd = { ...active, cancel_at_period_end: true };
    await deliver(
      t.app,
      eventOf('customer.subscription.updated', setToEnd, { created: created + 1 }),
    );
    // Ended at its period's end by the provider's clock (a test clock's, say): ahead of ours.
    await deliver(
      t.app,
      eventOf(
        'customer.subscription.deleted',
        { ...setToEnd, status: 'canceled' },
        { created: created + 2 },
      ),
    );
    assert.deepEqual((await tierChanges(t)).slice(1), [
      { from: 'pro', to: 'free', reason: 'scheduled_end' },
    ]);
  });

  test('a trial that ends without a card (its trial settings cancel it): reason trial_ended', async () => {
    const user = await profileOf(t, 'cardless');
    const created = Math.floor(Date.now() / 1000);
    const trialing = subscriptionObject({
      metadata: { user_id: user.id },
      status: 'trialing',
      trial_end: created + 14 * 86_400,
    });
    await deliver(t.app, eventOf('customer.subscription.created', trialing, { created }));
    // Ended early (trial_end=now), canceled for want of a payment method.
    const ended = { ...trialing, status: 'canceled' as const, trial_end: created + 1 };
    await deliver(t.app, eventOf('customer.subscription.deleted', ended, { created: created + 1 }));
    assert.deepEqual((await tierChanges(t)).slice(1), [
      { from: 'pro', to: 'free', reason: 'trial_ended' },
    ]);
  });

  test("a trial's notice waits for its subject's lock: an event being written meanwhile goes first", async () => {
    const user = await profileOf(t, 'tia');
    const trialing = subscriptionObject({
      metadata: { user_id: user.id },
      status: 'trialing',
      trial_end: Math.floor(Date.now() / 1000) + 3 * 86_400,
    });
    await deliver(t.app, eventOf('customer.subscription.created', trialing));
    await t.composition.db.query('DELETE FROM outbound_events');
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const writing = t.composition.db.transaction(async (tx) => {
      await tx.query(
        "SELECT 1 FROM announced_subjects WHERE subject_type = 'user' AND subject_id = $1 FOR UPDATE",
        [user.id],
      );
      locked();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await tx.query(
        `INSERT INTO outbound_events (id, subject_type, subject_id, type, body, created_at,
           retry_from, next_attempt_at) VALUES ('msg_written', 'user', $1, 'tier.changed', '{}',
           now(), now(), now())`,
        [user.id],
      );
    });
    await isLocked;
    const notice = deliver(t.app, eventOf('customer.subscription.trial_will_end', trialing));
    await Promise.all([writing, notice]);
    assert.deepEqual(
      (await events()).map((e) => e.type),
      ['tier.changed', 'trial.will_end'],
    );
  });

  test("an organisation's tier and seats are told for the organisation, not for each member", async () => {
    const { org } = await orgBilling(t, 'omega-amy', { org: 'omega', role: 'admin' });
    await orgBilling(t, 'omega-bob', { org: 'omega', role: 'member' });
    const withSeats = (quantity: number, created: number) => {
      const subscription = subscriptionObject({
        id: 'sub_omega',
        metadata: { org_id: org.id },
        priceId: 'price_sim_team',
      });
      subscription.items.data[0]!.quantity = quantity;
      return eventOf('customer.subscription.updated', subscription, { created });
    };
    const created = Math.floor(Date.now() / 1000);
    await deliver(t.app, { ...withSeats(2, created), type: 'customer.subscription.created' });
    await deliver(t.app, withSeats(5, created + 1));
    const told = (await events()).map((e) => JSON.parse(e.body));
    assert.deepEqual(
      told.map((e) => [e.type, e.data.subject.type, e.data.subject.idp_id]),
      [
        ['tier.changed', 'organization', 'omega'],
        ['seats.changed', 'organization', 'omega'],
      ],
    );
    assert.deepEqual([told[1].data.from, told[1].data.to], [2, 5]);
  });

  test('the metrics: events pending, delivered and failed, and the oldest pending age', async () => {
    const [ola, pam] = [await profileOf(t, 'ola'), await profileOf(t, 'pam')];
    await deliver(
      t.app,
      eventOf(
        'customer.subscription.created',
        subscriptionObject({ metadata: { user_id: ola.id } }),
      ),
    );
    await t.composition.jobs.deliveries!.deliverDue();
    await deliver(
      t.app,
      eventOf(
        'customer.subscription.created',
        subscriptionObject({ metadata: { user_id: pam.id } }),
      ),
    );
    const counts = await createOutbox(t.composition.db, 'free').counts(
      new Date(Date.now() + 60_000),
    );
    assert.deepEqual(
      { ...counts, oldestPendingSeconds: Math.round(counts.oldestPendingSeconds) },
      {
        pending: 1,
        delivered: 1,
        failed: 0,
        oldestPendingSeconds: 60,
      },
    );
    const metrics = t.composition.services.scrape!;
    metrics.outboundEvents(counts);
    const exposed = await metrics.registry.metrics();
    assert.match(exposed, /^outbound_events\{state="pending"\} 1$/m);
    assert.match(exposed, /^outbound_events\{state="delivered"\} 1$/m);
    assert.match(exposed, /^outbound_events_oldest_pending_seconds 60/m);
  });

  test('two workers on two instances never deliver one event twice', async () => {
    for (let i = 0; i < 30; i++) {
      const user = await profileOf(t, `many-${i}`);
      await deliver(
        t.app,
        eventOf(
          'customer.subscription.created',
          subscriptionObject({ metadata: { user_id: user.id } }),
        ),
      );
    }
    const [a, b] = [worker('instance-a'), worker('instance-b')];
    for (let round = 0; round < 5; round++) await Promise.all([a.deliverDue(), b.deliverDue()]);
    const ids = receiver.arrivals.map((arrival) => arrival.id);
    assert.equal(ids.length, 30);
    assert.equal(new Set(ids).size, 30);
  });
});
