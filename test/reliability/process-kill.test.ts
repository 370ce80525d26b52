// Promise: a service process killed outright (SIGKILL: no graceful close) while webhooks are being
// processed leaves every event either with its record and all its effects, or with neither; every
// event it acknowledged with 200 stays recorded; and after a restart the provider's redeliveries
// complete the rest, each event's effects applied exactly once.
// At the kill some transactions are certainly open, with writes done: their handlers are held on
// the provider re-read of the subscription; others are in flight at arbitrary points (the provider
// answers after a random delay), and the rest have committed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { once } from 'node:events';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { onPostgres } from '../helpers/database.ts';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.ts';
import {
  checkoutSessionObject,
  eventOf,
  signedHeaders,
  subscriptionObject,
  type FixtureEvent,
} from '../helpers/stripe-fixtures.ts';
import { SUBSCRIPTION_WRITE_AUDIT } from '../helpers/write-audit.ts';
import {
  startFaultyProvider,
  PROVIDER_WEBHOOK_SECRET,
  type FaultyProvider,
} from '../helpers/faulty-provider.ts';

const COMMITTED = 12;
/** More than the service's 10 pooled connections: some wait on the pool, the rest sit in open transactions. */
const STUCK = 12;
const IN_FLIGHT = 24;

interface Case {
  userId: string;
  customer: string;
  subscriptionId: string;
  event: FixtureEvent;
  /** What the delivery before the kill got: a status, or null for no answer. */
  answered: number | null;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe(
  'SIGKILL while webhooks are processed (PostgreSQL)',
  { skip: !onPostgres && 'needs PostgreSQL' },
  () => {
    let provider: FaultyProvider;
    let t: TestApp;
    const services: ServiceProcess[] = [];
    before(async () => {
      provider = await startFaultyProvider();
      t = await buildTestApp(provider.env);
      await t.composition.db.exec(SUBSCRIPTION_WRITE_AUDIT);
    });
    after(async () => {
      await Promise.all(services.map((service) => service.stop()));
      await t?.close();
      await provider?.close();
    });

    async function deliver(
      service: ServiceProcess,
      event: FixtureEvent,
    ): Promise<{ status: number; outcome: string } | null> {
      const payload = JSON.stringify(event);
      try {
        const response = await fetch(`${service.url}/api/v1/webhooks/payments`, {
          method: 'POST',
          body: payload,
          headers: signedHeaders(payload, PROVIDER_WEBHOOK_SECRET),
        });
        return {
          status: response.status,
          outcome: ((await response.json()) as { status?: string }).status ?? '',
        };
      } catch {
        return null; // the process died under the request
      }
    }

    /**
     * A new user and one event for it, alternating between the two handler shapes: a completed
     * checkout (links the customer before the provider re-read) and a created subscription (after).
     * The provider answers the re-read once `gate` resolves.
     */
    async function newCase(service: ServiceProcess, i: number, gate: Promise<void>): Promise<Case> {
      const token = await t.token(`killed-${i}`);
      const user = (await (
        await fetch(`${service.url}/api/v1/users/me`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).json()) as { id: string };
      const subscription = subscriptionObject({ metadata: { user_id: user.id } });
      provider.front.inject('GET', new RegExp(`^/v1/subscriptions/${subscription.id}$`), {
        kind: 'reply',
        status: 200,
        body: subscription,
        gate,
      });
      const event =
        i % 2 === 0
          ? eventOf(
              'checkout.session.completed',
              checkoutSessionObject({
                client_reference_id: user.id,
                customer: subscription.customer,
                subscription: subscription.id,
              }),
            )
          : eventOf('customer.subscription.created', subscription);
      return {
        userId: user.id,
        customer: String(subscription.customer),
        subscriptionId: subscription.id,
        event,
        answered: null,
      };
    }

    /** 'all' when the event's record and every effect are there, 'none' when none is, otherwise what is half there. */
    async function stateOf(c: Case): Promise<string> {
      const db = t.composition.db;
      const [user] = await db.query<{ payments_customer_id: string | null }>(
        'SELECT payments_customer_id FROM users WHERE id = $1',
        [c.userId],
      );
      const subscription = await db.query(
        'SELECT 1 FROM subscriptions WHERE id = $1 AND user_id = $2',
        [c.subscriptionId, c.userId],
      );
      const record = await db.query('SELECT 1 FROM webhook_events WHERE id = $1', [c.event.id]);
      const parts = {
        record: record.length === 1,
        customer: user!.payments_customer_id === c.customer,
        subscription: subscription.length === 1,
      };
      if (Object.values(parts).every(Boolean)) return 'all';
      if (!Object.values(parts).some(Boolean) && user!.payments_customer_id === null) return 'none';
      return `half: ${JSON.stringify({ ...parts, storedCustomer: user!.payments_customer_id })}`;
    }

    test('after a restart, every event has its record and all its effects or neither, and redeliveries complete it once', async () => {
      const first = await startServiceProcess(t.env);
      services.push(first);
      let release = () => {};
      const stuckGate = new Promise<void>((resolve) => (release = resolve));

      const committed = await Promise.all(
        Array.from({ length: COMMITTED }, (_, i) => newCase(first, i, Promise.resolve())),
      );
      for (const c of committed) c.answered = (await deliver(first, c.event))?.status ?? null;
      assert.deepEqual(new Set(committed.map((c) => c.answered)), new Set([200]));

      const stuck = await Promise.all(
        Array.from({ length: STUCK }, (_, i) => newCase(first, COMMITTED + i, stuckGate)),
      );
      const inFlight = await Promise.all(
        Array.from({ length: IN_FLIGHT }, (_, i) =>
          newCase(first, COMMITTED + STUCK + i, sleep(Math.random() * 40)),
        ),
      );
      const deliveries = [...stuck, ...inFlight].map(async (c) => {
        c.answered = (await deliver(first, c.event))?.status ?? null;
      });
      const deadline = Date.now() + 10_000;
      while (provider.front.held < 10 && Date.now() < deadline) await sleep(5);
      assert.ok(
        provider.front.held >= 10,
        `transactions held open at the provider re-read: ${provider.front.held}`,
      );
      await sleep(Math.random() * 20);
      first.child.kill('SIGKILL');
      await once(first.child, 'exit');
      services.splice(services.indexOf(first), 1); // nothing left to stop
      await Promise.all(deliveries);
      release();

      const all = [...committed, ...stuck, ...inFlight];
      const acknowledged = all.filter((c) => c.answered === 200);
      const second = await startServiceProcess(t.env);
      services.push(second);

      const states = await Promise.all(all.map(stateOf));
      const halves = states.filter((state) => state !== 'all' && state !== 'none');
      assert.deepEqual(halves, [], 'no event is half applied');
      for (const c of acknowledged)
        assert.equal(
          await stateOf(c),
          'all',
          `event ${c.event.id} was acknowledged, so it is kept`,
        );
      const applied = states.filter((state) => state === 'all').length;
      console.log(
        `# SIGKILL with ${all.length} events: ${acknowledged.length} acknowledged, ${all.length - acknowledged.length} unanswered; after restart ${applied} complete, ${all.length - applied} absent, 0 half applied`,
      );

      const redelivered = await Promise.all(all.map((c) => deliver(second, c.event)));
      assert.deepEqual(new Set(redelivered.map((answer) => answer?.status)), new Set([200]));
      redelivered.forEach((answer, i) =>
        assert.equal(
          answer!.outcome,
          states[i] === 'all' ? 'duplicate' : 'processed',
          all[i]!.event.id,
        ),
      );
      assert.deepEqual(new Set(await Promise.all(all.map(stateOf))), new Set(['all']));
      const writes = await t.composition.db.query<{ subscription_id: string; n: number }>(
        'SELECT subscription_id, count(*)::int AS n FROM subscription_writes GROUP BY subscription_id',
      );
      assert.equal(writes.length, all.length);
      assert.deepEqual(
        new Set(writes.map((w) => w.n)),
        new Set([1]),
        'each event applied exactly once',
      );
    });
  },
);
