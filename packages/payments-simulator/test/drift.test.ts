// Drift, for trying an application's reconciliation: changes "made in the dashboard" whose events
// are lost (cancel, switch, a subscription made elsewhere for an existing or a new customer) change
// what the API lists and send nothing, not even an undelivered event; from the /_sim controls and
// from the dashboard's buttons. And the list a reconciliation walks pages as Stripe's does.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import {
  API_KEY,
  databaseLabel,
  noticeAt,
  openCheckout,
  pay,
  startStack,
  type SimulatorStack,
  onceInTheSuite,
} from './harness.ts';
import { markerDelivered } from './marker.ts';

describe(`drift: changes whose events are lost (${databaseLabel})`, onceInTheSuite, () => {
  let stack: SimulatorStack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  async function subscribed(userId: string): Promise<string> {
    const { session } = await openCheckout(stack.stripe, userId);
    const start = stack.receiver.events.length;
    await pay(stack.simulator, session.id);
    await stack.receiver.waitFor(start + 3); // the payment's three events are in
    return (await stack.stripe.checkout.sessions.retrieve(session.id)).subscription as string;
  }
  async function drift(path: string, form: Record<string, string> = {}) {
    const response = await fetch(`${stack.simulator.url}/_sim/drift/${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${API_KEY}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams(form).toString(),
    });
    return { status: response.status, body: await response.json() };
  }
  /** Every event the simulator recorded, delivered or not. */
  const allEvents = async () =>
    (await stack.stripe.events.list({ limit: 100 }).autoPagingToArray({ limit: 10_000 })).map(
      (e) => e.id,
    );
  /** Runs `change` and checks that it left no event anywhere: none recorded, none delivered. */
  async function silently<T>(change: () => Promise<T>): Promise<T> {
    const [delivered, recorded] = [stack.receiver.hits, await allEvents()];
    const result = await change();
    // An event is recorded with the change it describes, so before the change answers.
    assert.deepEqual(await allEvents(), recorded, 'nothing recorded');
    await markerDelivered(stack);
    assert.equal(stack.receiver.hits, delivered + 1, 'nothing delivered but the marker');
    return result;
  }

  test('cancel and switch through /_sim/drift change the subscription and send nothing', async () => {
    const switched = await subscribed('drift-switch');
    const answer = await silently(() =>
      drift(`subscriptions/${switched}/switch`, { price: 'price_sim_team' }),
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body.events, []);
    const read = await stack.stripe.subscriptions.retrieve(switched);
    assert.equal(read.items.data[0]!.price.id, 'price_sim_team');

    const canceled = await subscribed('drift-cancel');
    await silently(() => drift(`subscriptions/${canceled}/cancel-now`));
    assert.equal((await stack.stripe.subscriptions.retrieve(canceled)).status, 'canceled');

    const unknown = await drift(`subscriptions/${canceled}/explode`);
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.error.message, /Unknown action explode; use one of .*switch/);
  });

  test('a subscription made elsewhere, for a new customer and for an existing one, sends nothing', async () => {
    const fresh = await silently(() =>
      drift('subscriptions', { email: 'adopted@example.com', price: 'price_sim_pro' }),
    );
    assert.equal(fresh.status, 200, JSON.stringify(fresh.body));
    const { customer, subscription } = fresh.body as {
      customer: Stripe.Customer;
      subscription: Stripe.Subscription;
    };
    assert.equal(customer.email, 'adopted@example.com');
    assert.equal(subscription.status, 'active');
    assert.deepEqual(subscription.metadata, {});
    const second = await silently(() =>
      drift('subscriptions', { customer: customer.id, price: 'price_sim_team' }),
    );
    assert.equal(second.body.customer.id, customer.id);
    const listed = await stack.stripe.subscriptions.list({ customer: customer.id, status: 'all' });
    assert.deepEqual(
      listed.data.map((s) => [s.id, s.items.data[0]!.price.id]),
      [
        [second.body.subscription.id, 'price_sim_team'],
        [subscription.id, 'price_sim_pro'],
      ],
    );
    const missing = await drift('subscriptions', {
      customer: 'cus_nobody',
      price: 'price_sim_pro',
    });
    assert.equal(missing.status, 400);
    assert.match(missing.body.error.message, /No such customer: 'cus_nobody'/);
  });

  test('the dashboard offers the same changes without events, and says that nothing was sent', async () => {
    const subscription = await subscribed('drift-dashboard');
    const page = await (await fetch(`${stack.simulator.url}/`)).text();
    const row = page.split('<tr').find((r) => r.includes(subscription)) ?? '';
    assert.match(row, /Without events:/);
    assert.match(row, new RegExp(`/dashboard/drift/subscriptions/${subscription}/switch`));
    assert.match(page, /Drift: changes whose events are lost/);
    const click = async (path: string, form: Record<string, string>) => {
      const response = await fetch(`${stack.simulator.url}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
      assert.equal(response.status, 303);
      return noticeAt(response.headers.get('location')!, stack.simulator.url);
    };
    const switched = await silently(() =>
      click(`/dashboard/drift/subscriptions/${subscription}/switch`, { price: 'price_sim_team' }),
    );
    assert.match(switched, /^Switched to Team .* No event was sent or even recorded/);
    const made = await silently(() =>
      click('/dashboard/drift/subscriptions', {
        email: 'elsewhere@example.com',
        price: 'price_sim_pro',
      }),
    );
    assert.match(
      made,
      /^Subscribed elsewhere@example\.com \(cus_\w+\) to Pro: sub_\w+, with no metadata/,
    );
    const crossSite = await fetch(`${stack.simulator.url}/dashboard/drift/subscriptions`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'sec-fetch-site': 'cross-site',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'price=price_sim_pro',
    });
    assert.equal(crossSite.status, 403);
  });

  test('status=all lists every subscription once, newest first, 100 a page with starting_after, as Stripe pages', async () => {
    for (let i = 0; i < 120; i++)
      await drift('subscriptions', { email: `page-${i}@example.com`, price: 'price_sim_pro' });
    const ended = (
      await drift('subscriptions', { email: 'ended@example.com', price: 'price_sim_pro' })
    ).body.subscription.id as string;
    await drift(`subscriptions/${ended}/cancel-now`);
    const first = await stack.stripe.subscriptions.list({ status: 'all', limit: 100 });
    assert.equal(first.data.length, 100);
    assert.equal(first.has_more, true);
    assert.equal(first.data[0]!.id, ended, 'newest first, canceled ones included');
    const pages = [first.data];
    for (let page = first; page.has_more;) {
      page = await stack.stripe.subscriptions.list({
        status: 'all',
        limit: 100,
        starting_after: page.data.at(-1)!.id,
      });
      pages.push(page.data);
    }
    const ids = pages.flat().map((s) => s.id);
    assert.equal(new Set(ids).size, ids.length, 'no subscription twice');
    const created = pages.flat().map((s) => s.created);
    assert.deepEqual(
      created,
      [...created].sort((a, b) => b - a),
      'newest first',
    );
    const all = await stack.stripe.subscriptions
      .list({ status: 'all', limit: 100 })
      .autoPagingToArray({ limit: 10_000 });
    assert.deepEqual(
      all.map((s) => s.id),
      ids,
    );
    const live = await stack.stripe.subscriptions
      .list({ limit: 100 })
      .autoPagingToArray({ limit: 10_000 });
    assert.ok(!live.some((s) => s.id === ended), 'without status, canceled ones are left out');
  });
});
