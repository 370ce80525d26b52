// Both of Stripe's payload styles, delivered by the real simulator to the real service over HTTP,
// signed, each with its destination's secret: snapshot events, and thin events (an event
// destination with thin payloads: `v1.*` notifications that name their object and carry none of
// it). Each drives the tier through a subscription's whole life, every event recorded exactly once
// under its own id; a thin event's object is read from the provider, and the reads are counted
// (the simulator's GET /_sim/calls, and their timing at the front the service talks to). A burst of
// late thin events costs one read per subscription, never two at a time.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { tierOf } from '../helpers/cli.ts';
import { databaseLabel } from '../helpers/database.ts';
import {
  API_KEY,
  control,
  startDeliveringProvider,
  subscribe,
  THIN_SECRET,
  type DeliveringProvider,
} from '../helpers/delivering-provider.ts';
import { mostInFlight } from '../helpers/faulty-front.ts';
import { signedHeaders } from '../helpers/stripe-fixtures.ts';

const SUBSCRIPTION_READ = 'GET /v1/subscriptions/:id';

const recorded = (p: DeliveringProvider) =>
  p.t.composition.db.query<{ id: string; type: string; outcome: string }>(
    'SELECT id, type, outcome FROM webhook_events',
  );

for (const payload of ['snapshot', 'thin'] as const) {
  describe(`${payload} events drive the tier (${databaseLabel})`, () => {
    let p: DeliveringProvider;
    before(async () => {
      p = await startDeliveringProvider(payload);
    });
    after(() => p.close());

    test('pay, a failed renewal (grace), paid again, cancel at period end, cancel now: the tier follows, each event once', async () => {
      const sub = `${payload}-life`;
      const since = p.front.requests.length;
      const id = await subscribe(p, sub);
      assert.equal(await tierOf(p.t, sub), 'pro');
      const paidWith = p.front.requests.slice(since);

      await control(p, id, 'fail-renewal');
      assert.equal(
        await tierOf(p.t, sub),
        'pro',
        'past_due keeps the tier during the grace period',
      );
      await control(p, id, 'renew');
      await control(p, id, 'cancel-at-period-end');
      const [row] = await p.t.composition.db.query<{
        status: string;
        cancel_at_period_end: boolean;
      }>('SELECT status, cancel_at_period_end FROM subscriptions WHERE id = $1', [id]);
      assert.deepEqual({ ...row }, { status: 'active', cancel_at_period_end: true });
      assert.equal(await tierOf(p.t, sub), 'pro', 'paid until the period ends');
      await control(p, id, 'cancel-now');
      assert.equal(await tierOf(p.t, sub), 'free');

      // Every event the simulator sent is recorded once, under the id it was delivered with (the
      // portal configuration the service made at its start went out before this test chose a style).
      const sent = (await p.direct.events.list({ limit: 100 })).data.filter(
        (e) =>
          e.type !== 'customer.updated' &&
          e.type !== 'payment_method.attached' &&
          !e.type.startsWith('billing_portal.configuration.'),
      );
      const rows = await recorded(p);
      const ids = new Set(rows.map((r) => r.id));
      assert.equal(ids.size, rows.length, 'no event recorded twice');
      for (const event of sent) {
        const deliveredAs = payload === 'thin' ? `evt_thin_${event.id.slice(4)}` : event.id;
        const record = rows.find((r) => r.id === deliveredAs);
        assert.ok(record, `${event.type} ${deliveredAs} recorded`);
        assert.equal(record.type, payload === 'thin' ? `v1.${event.type}` : event.type);
      }

      // What paying cost in provider reads (the service's requests, at the front it talks to): a
      // thin event's object is read, a snapshot carries it.
      const paying = (route: string) =>
        paidWith.filter(
          (r) =>
            r.method === 'GET' &&
            new RegExp(`^${route.replace('GET ', '').replace(':id', '[^/]+')}$`).test(r.path),
        ).length;
      if (payload === 'thin') {
        assert.equal(paying('GET /v1/checkout/sessions/:id'), 1, 'the completed session, once');
        assert.equal(paying('GET /v1/invoices/:id'), 1, 'the paid invoice, once');
      } else {
        assert.equal(paying('GET /v1/invoices/:id'), 0);
      }
      assert.ok(
        paying(SUBSCRIPTION_READ) >= 1 && paying(SUBSCRIPTION_READ) <= 3,
        `${paying(SUBSCRIPTION_READ)} subscription reads for three events`,
      );
    });

    test('a redelivery of a processed event is a duplicate, and reads nothing', async () => {
      await subscribe(p, `${payload}-resend`);
      const [paid] = (await p.direct.events.list({ type: 'invoice.paid', limit: 1 })).data;
      const before = await p.calls();
      const resent = await fetch(`${p.simulator.url}/dashboard/events/${paid!.id}/resend`, {
        method: 'POST',
        redirect: 'manual',
      });
      assert.equal(resent.status, 303);
      const page = await (
        await fetch(new URL(resent.headers.get('location')!, p.simulator.url))
      ).text();
      assert.match(page, /the service answered 200 \{&quot;status&quot;:&quot;duplicate&quot;\}/);
      const after = await p.calls();
      delete after['GET /v1/events'];
      delete before['GET /v1/events'];
      assert.deepEqual(after, before, 'no provider call for a duplicate');
    });
  });
}

describe(`thin events read from the provider: bursts, failures (${databaseLabel})`, () => {
  let p: DeliveringProvider;
  before(async () => {
    p = await startDeliveringProvider('thin');
  });
  after(() => p.close());

  /** The thin events the simulator has not delivered, as it would send them. */
  async function heldNotifications(): Promise<string[]> {
    const held = await p.direct.events
      .list({ delivery_success: false, limit: 100 })
      .autoPagingToArray({ limit: 1000 });
    return Promise.all(
      held.map(async (event) =>
        (
          await fetch(`${p.simulator.url}/v2/core/events/evt_thin_${event.id.slice(4)}`, {
            headers: { authorization: `Bearer ${API_KEY}` },
          })
        ).text(),
      ),
    );
  }

  async function deliverAll(bodies: string[], lanes: number): Promise<number[]> {
    const queue = [...bodies];
    const statuses = await Promise.all(
      Array.from({ length: lanes }, async () => {
        const answered = [];
        for (let body = queue.pop(); body; body = queue.pop())
          answered.push(
            (
              await p.t.app.inject({
                method: 'POST',
                url: '/api/v1/webhooks/payments',
                payload: body,
                headers: signedHeaders(body, THIN_SECRET),
              })
            ).statusCode,
          );
        return answered;
      }),
    );
    return statuses.flat();
  }

  const readsOf = (id: string, since: number) =>
    p.front.requests
      .slice(since)
      .filter((r) => r.method === 'GET' && r.path === `/v1/subscriptions/${id}`);

  test('late events, shuffled, with duplicates: one read per subscription, never two in flight, the provider state', async (context) => {
    const ids: string[] = [];
    await p.holdDeliveries(async () => {
      for (const [index, actions] of [
        ['cancel-at-period-end', 'resume-at-period-end', 'fail-renewal'],
        ['fail-renewal', 'renew', 'cancel-at-period-end'],
        ['cancel-now'],
      ].entries()) {
        const id = await subscribe(p, `burst-${index}`);
        for (const action of actions) await p.sim(`subscriptions/${id}/${action}`);
        ids.push(id);
      }
      const bodies = await heldNotifications();
      await new Promise((resolve) => setTimeout(resolve, 1100)); // every event older than any read now
      const since = p.front.requests.length;
      const before = await p.calls();
      const deliveries = [...bodies, ...bodies].sort(() => Math.random() - 0.5);
      assert.deepEqual([...new Set(await deliverAll(deliveries, 8))], [200]);
      const reads = ((await p.calls())[SUBSCRIPTION_READ] ?? 0) - (before[SUBSCRIPTION_READ] ?? 0);
      assert.ok(reads <= ids.length, `${reads} subscription reads for ${ids.length} subscriptions`);
      context.diagnostic(
        `late burst: ${deliveries.length} deliveries of ${bodies.length} thin events, ${reads} subscription reads for ${ids.length} subscriptions`,
      );
      for (const id of ids) {
        assert.ok(readsOf(id, since).length <= 1, `${id}: ${readsOf(id, since).length} reads`);
        const truth = await p.direct.subscriptions.retrieve(id);
        const [stored] = await p.t.composition.db.query<{
          status: string;
          cancel_at_period_end: boolean;
        }>('SELECT status, cancel_at_period_end FROM subscriptions WHERE id = $1', [id]);
        assert.deepEqual(
          { ...stored },
          { status: truth.status, cancel_at_period_end: truth.cancel_at_period_end },
          id,
        );
      }
      const [count] = await p.t.composition.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM webhook_events WHERE id = ANY($1)',
        [bodies.map((body) => (JSON.parse(body) as { id: string }).id)],
      );
      assert.equal(count!.n, bodies.length, 'each thin event recorded once');
    });
  });

  test('events of this very second, all at once: never two reads of one subscription in flight, the provider state', async (context) => {
    const id = await subscribe(p, 'burst-now');
    await p.holdDeliveries(async () => {
      for (const action of ['cancel-at-period-end', 'resume-at-period-end', 'cancel-at-period-end'])
        await p.sim(`subscriptions/${id}/${action}`);
      const bodies = await heldNotifications();
      const since = p.front.requests.length;
      const deliveries = Array.from({ length: 4 }, () => bodies).flat();
      assert.deepEqual([...new Set(await deliverAll(deliveries, deliveries.length))], [200]);
      assert.equal(mostInFlight(readsOf(id, since)), 1, 'one read in flight at a time');
      const [stored] = await p.t.composition.db.query<{ cancel_at_period_end: boolean }>(
        'SELECT cancel_at_period_end FROM subscriptions WHERE id = $1',
        [id],
      );
      assert.equal(stored!.cancel_at_period_end, true);
      context.diagnostic(
        `same-second burst: ${deliveries.length} deliveries of ${bodies.length} events, ${readsOf(id, since).length} subscription reads`,
      );
    });
  });

  test('the provider down while a thin invoice event is read: 502, nothing recorded, the failure kept; the next delivery processes it', async () => {
    await p.holdDeliveries(async () => {
      await subscribe(p, 'thin-provider-down');
      const body = (await heldNotifications()).find((held) => held.includes('"v1.invoice.paid"'))!;
      const { id } = JSON.parse(body) as { id: string };
      const post = () =>
        p.t.app.inject({
          method: 'POST',
          url: '/api/v1/webhooks/payments',
          payload: body,
          headers: signedHeaders(body, THIN_SECRET),
        });
      const record = () =>
        p.t.composition.db.query<{ outcome: string }>(
          'SELECT outcome FROM webhook_events WHERE id = $1',
          [id],
        );
      p.front.inject('GET', /^\/v1\/invoices\//, { kind: 'fail' });
      try {
        const failed = await post();
        assert.equal(failed.statusCode, 502, failed.body);
      } finally {
        p.front.clear();
      }
      assert.deepEqual(await record(), [], 'nothing recorded');
      const [failure] = await p.t.composition.db.query<{ error: string }>(
        'SELECT error FROM webhook_failures WHERE event_id = $1',
        [id],
      );
      assert.match(failure!.error, /payment/i, 'the failed attempt is kept');
      const again = await post();
      assert.deepEqual(again.json(), { status: 'processed' });
      assert.deepEqual(
        (await record()).map((r) => r.outcome),
        ['processed'],
      );
    });
  });
});
