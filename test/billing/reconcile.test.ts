// The reconciliation brings the stored subscriptions back to the provider's state whatever drifted
// (canceled, switched, created elsewhere, unlinked), with list calls only, through the webhook
// path's ordering: a stale event delivered afterwards does not undo a repair, a repair does not
// overwrite a newer event's state, a tie of the same second is settled by listing again, and a
// dry run changes nothing. With a throttling provider it waits as asked and goes on.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyListing, settleTies } from '../../src/domain/billing/provider-listing.ts';
import { reconcile } from '../../src/domain/billing/reconcile.ts';
import { replayUndeliveredEvents } from '../../src/domain/webhooks/replay.ts';
import { bearer, buildTestApp, profileId, type TestApp } from '../helpers/app.ts';
import { operatorDeps, payWhileUnreachable, tierOf } from '../helpers/cli.ts';
import { databaseLabel } from '../helpers/database.ts';
import {
  buildAppWithFaultyProvider,
  type AppWithFaultyProvider,
} from '../helpers/faulty-provider.ts';
import {
  drift,
  providerCalls,
  resetProviderCalls,
  simulatorClient,
} from '../helpers/simulator-client.ts';
import { deliver, eventOf, subscriptionObject } from '../helpers/stripe-fixtures.ts';

const now = () => Math.floor(Date.now() / 1000);

describe(`reconcile (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const userId = (sub: string) => profileId(t, sub);
  /** A user whose paid subscription the service knows (its events delivered), and its id. */
  async function subscriber(sub: string): Promise<string> {
    await payWhileUnreachable(t, sub);
    await replayUndeliveredEvents(t.composition.payments, t.composition.services.webhooks);
    const [row] = await t.composition.db.query<{ id: string }>(
      'SELECT s.id FROM subscriptions s JOIN users u ON u.id = s.user_id WHERE u.idp_id = $1',
      [sub],
    );
    assert.equal(await tierOf(t, sub), 'pro');
    return row!.id;
  }
  const stored = async (id: string) =>
    (
      await t.composition.db.query<{ status: string; price_id: string; user_id: string }>(
        'SELECT status, price_id, user_id FROM subscriptions WHERE id = $1',
        [id],
      )
    )[0];

  test('drift of every kind is repaired, with list calls only, one per 100 subscriptions', async () => {
    const canceled = await subscriber('rec-canceled');
    const switched = await subscriber('rec-switched');
    await drift(t, `subscriptions/${canceled}/cancel-now`);
    await drift(t, `subscriptions/${switched}/switch`, { price: 'price_sim_team' });
    // A user who started a checkout (so has a customer) and subscribed elsewhere.
    const checkout = await t.app.inject({
      method: 'POST',
      url: '/api/v1/billing/checkout',
      headers: bearer(await t.token('rec-elsewhere')),
      payload: {},
    });
    assert.equal(checkout.statusCode, 200);
    const [linkedRow] = await t.composition.db.query<{
      payments_customer_id: string;
    }>('SELECT payments_customer_id FROM users WHERE idp_id = $1', ['rec-elsewhere']);
    const customer = linkedRow!.payments_customer_id;
    const byCustomer = await drift(t, 'subscriptions', { customer, price: 'price_sim_pro' });
    // A user who never checked out, named by a subscription made elsewhere for a new customer.
    const named = await drift(t, 'subscriptions', {
      email: 'rec-named@example.com',
      price: 'price_sim_team',
      'metadata[user_id]': await userId('rec-named'),
    });
    // Nobody's: a customer the service has never heard of.
    const nobodys = await drift(t, 'subscriptions', {
      email: 'stranger@example.com',
      price: 'price_sim_pro',
    });
    // Enough subscriptions for several pages.
    for (let i = 0; i < 120; i++)
      await drift(t, 'subscriptions', { email: `filler-${i}@example.com`, price: 'price_sim_pro' });
    assert.equal(await tierOf(t, 'rec-canceled'), 'pro', 'before: the cancellation is unknown');

    await resetProviderCalls(t);
    const result = await reconcile(operatorDeps(t));
    const calls = await providerCalls(t);
    // Pages of 100, and a customer listed again for each tie of the same second: list calls only.
    assert.deepEqual(calls, { 'GET /v1/subscriptions': result.pages + result.relisted });
    assert.ok(result.seen >= 125, `seen ${result.seen}`);
    assert.equal(result.pages, Math.ceil(result.seen / 100));
    assert.equal(result.seen, result.repaired + result.unchanged + result.unlinked);

    assert.equal(await tierOf(t, 'rec-canceled'), 'free');
    assert.equal((await stored(canceled))!.status, 'canceled');
    assert.equal(await tierOf(t, 'rec-switched'), 'team');
    assert.equal(await tierOf(t, 'rec-elsewhere'), 'pro', 'linked by the stored customer');
    assert.equal(
      (await stored(byCustomer.subscription.id))!.user_id,
      await userId('rec-elsewhere'),
    );
    assert.equal(await tierOf(t, 'rec-named'), 'team', 'linked by metadata.user_id');
    const [namedUser] = await t.composition.db.query<{ payments_customer_id: string }>(
      'SELECT payments_customer_id FROM users WHERE idp_id = $1',
      ['rec-named'],
    );
    assert.equal(namedUser!.payments_customer_id, named.customer.id, 'and its customer linked');
    assert.equal(await stored(nobodys.subscription.id), undefined, 'nobody to store it for');
    const verdicts = new Map(result.changes.map((c) => [c.subscription.id, c.verdict]));
    for (const id of [canceled, switched, byCustomer.subscription.id, named.subscription.id])
      assert.equal(verdicts.get(id), 'repaired', id);
    assert.equal(verdicts.get(nobodys.subscription.id), 'unlinked');

    const again = await reconcile(operatorDeps(t));
    assert.equal(again.repaired, 0, 'a second run finds nothing to repair');
    assert.equal(again.unlinked, result.unlinked);
  });

  test('a stale event delivered after the repair does not undo it', async () => {
    const id = await subscriber('rec-stale');
    const active = await simulatorClient(t).subscriptions.retrieve(id);
    const [row] = await t.composition.db.query<{ as_of: string }>(
      'SELECT as_of FROM subscriptions WHERE id = $1',
      [id],
    );
    const storedAsOf = Number(row!.as_of);
    while (now() < storedAsOf + 2) await new Promise((resolve) => setTimeout(resolve, 100));
    await drift(t, `subscriptions/${id}/cancel-now`);
    await reconcile(operatorDeps(t));
    assert.equal(await tierOf(t, 'rec-stale'), 'free');
    // The provider's late retry of an update newer than what was stored, older than the listing.
    const stale = eventOf('customer.subscription.updated', active, { created: storedAsOf + 1 });
    assert.deepEqual((await deliver(t.app, stale)).json(), { status: 'processed' });
    assert.equal(await tierOf(t, 'rec-stale'), 'free');
    assert.equal((await stored(id))!.status, 'canceled');
  });

  test('a repair never overwrites the state of a newer event', async () => {
    const id = await subscriber('rec-newer');
    const active = await simulatorClient(t).subscriptions.retrieve(id);
    await drift(t, `subscriptions/${id}/cancel-now`);
    // An event the provider created after the list will be read (its clock is a few seconds on).
    const newer = eventOf(
      'customer.subscription.updated',
      { ...active, cancel_at_period_end: true },
      { created: now() + 30 },
    );
    assert.deepEqual((await deliver(t.app, newer)).json(), { status: 'processed' });
    const result = await reconcile(operatorDeps(t));
    assert.ok(!result.changes.some((c) => c.subscription.id === id));
    const [row] = await t.composition.db.query<{ status: string; cancel_at_period_end: boolean }>(
      'SELECT status, cancel_at_period_end FROM subscriptions WHERE id = $1',
      [id],
    );
    assert.deepEqual(row, { status: 'active', cancel_at_period_end: true });
  });

  test("a stored state from an event of the listing's very second is settled by listing again a second later", async () => {
    const id = await subscriber('rec-tie');
    const read = await t.composition.payments.retrieveSubscription(id);
    await drift(t, `subscriptions/${id}/cancel-now`);
    // The stored state is as of second X; a listing of that same second says otherwise.
    const [asOfRow] = await t.composition.db.query<{ as_of: string }>(
      'SELECT as_of FROM subscriptions WHERE id = $1',
      [id],
    );
    const sameSecond = {
      value: [{ ...read.value!, status: 'past_due' as const }],
      readAt: Number(asOfRow!.as_of),
    };
    const [tie] = await applyListing(operatorDeps(t), sameSecond);
    assert.equal(tie!.verdict, 'tied');
    assert.equal((await stored(id))!.status, 'active', 'a tie writes nothing');
    const waits: number[] = [];
    const [settled] = await settleTies(operatorDeps(t), [tie!], {
      sleep: async (ms) => {
        waits.push(ms);
        await new Promise((resolve) => setTimeout(resolve, ms));
      },
    });
    assert.deepEqual(waits, [1000]);
    assert.equal(settled!.verdict, 'repaired');
    assert.equal((await stored(id))!.status, 'canceled');
  });

  test('a dry run says what it would change and changes nothing', async () => {
    const id = await subscriber('rec-dry');
    await drift(t, `subscriptions/${id}/switch`, { price: 'price_sim_team' });
    const before = await t.composition.db.query('SELECT * FROM subscriptions ORDER BY id');
    const result = await reconcile(operatorDeps(t), { dryRun: true });
    const change = result.changes.find((c) => c.subscription.id === id);
    assert.equal(change?.verdict, 'repaired');
    assert.equal(change?.before?.priceId, 'price_sim_pro');
    assert.equal(change?.subscription.priceId, 'price_sim_team');
    assert.deepEqual(
      await t.composition.db.query('SELECT * FROM subscriptions ORDER BY id'),
      before,
    );
    assert.equal(await tierOf(t, 'rec-dry'), 'pro');
  });

  test("a cancellation scheduled the portal's way (cancel_at alone) is repaired, and so is its withdrawal", async () => {
    const id = await subscriber('rec-scheduled');
    const cancelAt = async () =>
      (
        await t.composition.db.query<{ cancel_at: Date | null }>(
          'SELECT cancel_at FROM subscriptions WHERE id = $1',
          [id],
        )
      )[0]!.cancel_at;
    await drift(t, `subscriptions/${id}/schedule-cancel`);
    assert.equal(await cancelAt(), null, 'before: the scheduled cancellation is unknown');
    const scheduled = await reconcile(operatorDeps(t));
    assert.equal(scheduled.changes.find((c) => c.subscription.id === id)?.verdict, 'repaired');
    assert.ok((await cancelAt()) instanceof Date, 'cancel_at stored');

    await drift(t, `subscriptions/${id}/resume-at-period-end`);
    const withdrawn = await reconcile(operatorDeps(t));
    assert.equal(withdrawn.changes.find((c) => c.subscription.id === id)?.verdict, 'repaired');
    assert.equal(await cancelAt(), null, 'cancel_at cleared');
  });
});

describe(`reconcile with a throttling provider (${databaseLabel})`, () => {
  let stack: AppWithFaultyProvider;
  before(async () => {
    stack = await buildAppWithFaultyProvider();
  });
  after(() => stack.close());

  test('a throttled page is asked again after the Retry-After, and the run goes on to the end', async () => {
    const { t, provider } = stack;
    await payWhileUnreachable(t, 'rec-throttled');
    provider.front.inject(
      'GET',
      /^\/v1\/subscriptions$/,
      {
        kind: 'reply',
        status: 429,
        headers: { 'retry-after': '3' },
        body: {
          error: {
            type: 'invalid_request_error',
            code: 'rate_limit',
            message: 'Too many requests',
          },
        },
      },
      2,
    );
    const waits: number[] = [];
    const result = await reconcile(
      {
        store: t.composition.store,
        payments: t.composition.payments,
        log: t.composition.logger,
        policy: t.composition.policy,
      },
      { sleep: async (ms) => void waits.push(ms) },
    );
    assert.deepEqual(waits, [3000, 3000]);
    assert.equal(result.repaired, 1);
    assert.equal(await tierOf(t, 'rec-throttled'), 'pro');
  });

  test("a listed subscription the service cannot translate (an Accounts v2 account's) is counted as not linked, and the run goes on", async () => {
    const { t, provider } = stack;
    const accountsV2 = subscriptionObject({
      id: 'sub_ListedAccountsV2',
      customer: null as never,
      customer_account: 'acct_1ListedAccountsV2',
    });
    const stranger = subscriptionObject({ id: 'sub_ListedStranger', customer: 'cus_Stranger' });
    provider.front.inject('GET', /^\/v1\/subscriptions$/, {
      kind: 'reply',
      status: 200,
      body: {
        object: 'list',
        data: [accountsV2, stranger],
        has_more: false,
        url: '/v1/subscriptions',
      },
    });
    try {
      const result = await reconcile({
        store: t.composition.store,
        payments: t.composition.payments,
        log: t.composition.logger,
        policy: t.composition.policy,
      });
      assert.deepEqual(
        { seen: result.seen, unlinked: result.unlinked, repaired: result.repaired },
        { seen: 2, unlinked: 2, repaired: 0 },
      );
    } finally {
      provider.front.clear();
    }
  });
});

describe(`the scheduled reconciliation in one service (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ BILLING_RECONCILE_INTERVAL: '1h' });
  });
  after(() => t.close());

  const metrics = async () =>
    (await t.composition.services.scrape!.registry.metrics())
      .split('\n')
      .filter((line) => /^(reconcile_|scheduled_job_)/.test(line));

  test('a look runs it when due, and not again within the interval; the metrics say so', async () => {
    await payWhileUnreachable(t, 'rec-scheduled');
    assert.equal(await tierOf(t, 'rec-scheduled'), 'free');
    const job = t.composition.jobs.reconcile!;
    await job.look();
    assert.equal(await tierOf(t, 'rec-scheduled'), 'pro');
    const after = await metrics();
    assert.ok(after.includes('reconcile_last_run_repairs 1'), after.join('\n'));
    assert.ok(after.includes('reconcile_repairs_total 1'), after.join('\n'));
    const completed = after.find((l) =>
      l.startsWith('scheduled_job_last_completed_timestamp_seconds{job="reconcile"}'),
    );
    assert.ok(Math.abs(Number(completed?.split(' ')[1]) - Date.now() / 1000) < 60, completed);
    await payWhileUnreachable(t, 'rec-scheduled-later');
    await job.look();
    assert.equal(await tierOf(t, 'rec-scheduled-later'), 'free', 'not due again for an hour');
    assert.ok((await metrics()).includes('reconcile_repairs_total 1'));
  });
});
