// Promise: when PostgreSQL goes away in the middle of processing a webhook (its backend terminated,
// or the whole server stopped), the delivery answers 500 or 503, the half-done transaction leaves
// nothing behind (no event record, none of the handler's writes), deliveries during the outage are
// answered 503 at once instead of hanging, and once the database is back the same service
// instance, never restarted, processes the provider's next delivery with all its effects.
// The service runs as a real process; the fault lands mid-transaction for certain: the provider
// read comes first (outside any transaction), then the handler's transaction waits inside, on the
// user's row that a session of the test holds locked, while the database dies.
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import pg from 'pg';
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
import {
  startFaultyProvider,
  PROVIDER_WEBHOOK_SECRET,
  type FaultyProvider,
} from '../helpers/faulty-provider.ts';
import { peerClosesTakenIn } from '../helpers/peer-closed.ts';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.ts';

async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe(
  'webhook processing while PostgreSQL goes away (PostgreSQL)',
  { skip: !onPostgres && 'needs PostgreSQL' },
  () => {
    let postgres: PrivatePostgres;
    let provider: FaultyProvider;
    let t: TestApp;
    let service: ServiceProcess;
    before(async () => {
      postgres = await startPrivatePostgres();
      provider = await startFaultyProvider();
      // The in-process app only mints tokens and reads the database; the service under test is `service`.
      t = await buildTestApp({ ...provider.env, DATABASE_URL: postgres.url });
    });
    // Each test faults a service process of its own, so one test's crash cannot hide another's result.
    beforeEach(async () => {
      service = await startServiceProcess(t.env);
    });
    afterEach(() => service.stop());
    after(async () => {
      await t?.close();
      await provider?.close();
      await postgres?.destroy();
    });

    interface Answer {
      headers: Record<string, string>;
      statusCode: number;
      body: string;
      json(): Record<string, unknown>;
    }

    /** How the service process ended, with the errors it logged, for a failure message. */
    function fate(): string {
      const ended = service.child.exitCode !== null || service.child.signalCode !== null;
      const errors = service
        .logged()
        .filter((entry) => (entry.level ?? 0) >= 50)
        .map((entry) => `${entry.msg}${entry.err?.message ? `: ${entry.err.message}` : ''}`);
      return `${ended ? `the service process exited (code ${service.child.exitCode}, signal ${service.child.signalCode})` : 'the service process is still running'}; errors it logged: ${JSON.stringify(errors)}`;
    }

    /** A request to the service process; a lost connection fails the test with the process's fate. */
    async function call(path: string, init: RequestInit = {}): Promise<Answer> {
      try {
        const response = await fetch(`${service.url}${path}`, init);
        const body = await response.text();
        return {
          statusCode: response.status,
          headers: Object.fromEntries(response.headers),
          body,
          json: () => JSON.parse(body),
        };
      } catch (error) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        throw new Error(`no answer from the service (${(error as Error).message}); ${fate()}`);
      }
    }
    const send = (event: FixtureEvent) => {
      const payload = JSON.stringify(event);
      return call('/api/v1/webhooks/payments', {
        method: 'POST',
        body: payload,
        headers: signedHeaders(payload, PROVIDER_WEBHOOK_SECRET),
      });
    };
    const me = async (sub: string) =>
      call('/api/v1/users/me', { headers: { authorization: `Bearer ${await t.token(sub)}` } });

    /**
     * The process that was faulted is the one still serving: it was not restarted and did not crash
     * when it took in the end of its connections (a crash closes its port, so /healthz goes first).
     */
    async function assertSameProcessServing(pid: number | undefined) {
      await peerClosesTakenIn(pid!, Number(new URL(postgres.url).port));
      assert.equal((await call('/healthz')).statusCode, 200);
      const exited = service.child.exitCode !== null || service.child.signalCode !== null;
      assert.ok(!exited, `after the database fault, ${fate()}`);
      assert.equal(service.child.pid, pid);
    }

    /**
     * A paid checkout for a new user: the completed-checkout event, and a provider that answers the
     * re-read of its subscription only once `release` is called (then at once, every time).
     */
    async function paidCheckout(sub: string) {
      const user = (await me(sub)).json() as { id: string };
      const subscription = subscriptionObject({ metadata: { user_id: user.id } });
      const session = checkoutSessionObject({
        client_reference_id: user.id,
        customer: subscription.customer,
        subscription: subscription.id,
      });
      provider.front.inject('GET', new RegExp(`^/v1/subscriptions/${subscription.id}$`), {
        kind: 'reply',
        status: 200,
        body: subscription,
      });
      return { user, subscription, event: eventOf('checkout.session.completed', session) };
    }

    /** Holds the user's row locked from a session of its own, so the handler's transaction waits inside, on it. */
    async function holdUserRow(userId: string) {
      const admin = new pg.Client({ connectionString: postgres.url });
      await admin.connect();
      admin.on('error', () => {}); // ended with the server in the second test
      await admin.query('BEGIN');
      await admin.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
      const waiting = async () =>
        (
          await admin.query(
            "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
          )
        ).rowCount === 1;
      return {
        admin,
        inside: () => until(waiting, "the handler's transaction to wait on the user row"),
        release: () => admin.end().catch(() => {}),
      };
    }

    /** Everything the event's handler writes, and the event record. */
    async function effects(userId: string, subscriptionId: string, eventId: string) {
      const db = t.composition.db;
      const [user] = await db.query<{ payments_customer_id: string | null }>(
        'SELECT payments_customer_id FROM users WHERE id = $1',
        [userId],
      );
      const subscriptions = await db.query<{ status: string }>(
        'SELECT status FROM subscriptions WHERE id = $1',
        [subscriptionId],
      );
      const records = await db.query('SELECT 1 FROM webhook_events WHERE id = $1', [eventId]);
      return {
        customer: user!.payments_customer_id,
        subscriptions: subscriptions.map((s) => s.status),
        records: records.length,
      };
    }

    function assertRefused(response: Answer) {
      assert.ok(
        [500, 503].includes(response.statusCode),
        `answered ${response.statusCode}: ${response.body}`,
      );
      assert.equal(typeof response.json().detail, 'string');
    }

    async function assertProcessedOnRedelivery(
      sub: string,
      checkout: Awaited<ReturnType<typeof paidCheckout>>,
    ) {
      const { user, subscription, event } = checkout;
      const redelivered = await send(event);
      assert.equal(redelivered.statusCode, 200, redelivered.body);
      assert.deepEqual(redelivered.json(), { status: 'processed' });
      assert.deepEqual(await effects(user.id, subscription.id, event.id), {
        customer: subscription.customer,
        subscriptions: ['active'],
        records: 1,
      });
      assert.equal((await me(sub)).json().tier, 'pro');
    }

    test('its backend is terminated mid-transaction: 500/503, nothing half-applied, and the next delivery is processed', async () => {
      const pid = service.child.pid;
      const checkout = await paidCheckout('terminated-backend');
      const held = await holdUserRow(checkout.user.id);
      const delivery = send(checkout.event);
      await held.inside();

      const terminated = await held.admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      assert.ok(terminated.rowCount! >= 1);
      await held.release();

      const refused = await delivery;
      assertRefused(refused);
      await assertSameProcessServing(pid);
      console.log(
        `# PostgreSQL backend terminated mid-transaction: the delivery answered ${refused.statusCode}`,
      );
      assert.deepEqual(
        await effects(checkout.user.id, checkout.subscription.id, checkout.event.id),
        { customer: null, subscriptions: [], records: 0 },
      );
      await assertProcessedOnRedelivery('terminated-backend', checkout);
    });

    test('the server stops mid-transaction: 500/503, quick 503s while it is down, then recovery without a restart', async () => {
      const pid = service.child.pid;
      const checkout = await paidCheckout('stopped-server');
      const held = await holdUserRow(checkout.user.id);
      const delivery = send(checkout.event);
      await held.inside();
      await postgres.stop();
      await held.release();
      const refused = await delivery;
      assertRefused(refused);
      await assertSameProcessServing(pid);

      const started = performance.now();
      const duringOutage = await send(checkout.event);
      const outageMs = performance.now() - started;
      assert.equal(duringOutage.statusCode, 503, duringOutage.body);
      assert.deepEqual(duringOutage.json(), { detail: 'Database unavailable' });
      assert.equal(duringOutage.headers['retry-after'], '5', 'as /openapi.json documents');
      assert.ok(outageMs < 6_000, `answered in ${outageMs.toFixed(0)} ms`);
      assert.equal((await me('stopped-server')).statusCode, 503);
      assert.equal((await call('/readyz')).statusCode, 503);

      await postgres.start();
      assert.deepEqual(
        await effects(checkout.user.id, checkout.subscription.id, checkout.event.id),
        { customer: null, subscriptions: [], records: 0 },
      );
      assert.equal((await call('/readyz')).statusCode, 200);
      await assertProcessedOnRedelivery('stopped-server', checkout);
      console.log(
        `# PostgreSQL stopped mid-transaction: the delivery answered ${refused.statusCode}; deliveries during the outage 503 in ${outageMs.toFixed(0)} ms`,
      );
    });
  },
);
