// Outbound events across two service processes on one PostgreSQL: 20 concurrent deliveries of one
// provider event, split between them, give one event, and their two delivery workers send it once.
// "Once" is checked on signals, not after a pause: the outbox says every event is delivered and
// no attempt is under way; then both workers are seen to claim again (each one's next claim, held
// waiting on a lock of the outbox, is let through), and every attempt those claims started has
// been answered. A second send, whether under way at delivery or started by either worker's next
// look at the outbox, has then reached the receiver.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { startAppReceiver, type AppReceiver } from '../helpers/app-receiver.ts';
import { onPostgres } from '../helpers/database.ts';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.ts';
import { eventOf, signedHeaders, subscriptionObject } from '../helpers/stripe-fixtures.ts';

describe(
  'outbound events across two processes (PostgreSQL)',
  { skip: !onPostgres && 'needs PostgreSQL' },
  () => {
    let t: TestApp;
    let receiver: AppReceiver;
    let services: ServiceProcess[] = [];
    before(async () => {
      receiver = await startAppReceiver();
      const events = { APP_WEBHOOK_URL: receiver.url, APP_WEBHOOK_SECRET: receiver.secret };
      t = await buildTestApp(events);
      services = await Promise.all([startServiceProcess(t.env), startServiceProcess(t.env)]);
    });
    after(async () => {
      await Promise.all(services.map((s) => s.stop()));
      await t?.close();
      await receiver?.close();
    });

    test('one provider event delivered 20 times over two instances: one event, sent once', async () => {
      const users = await Promise.all(
        ['kim', 'lou', 'max'].map(async (sub) => {
          const me = await fetch(`${services[0]!.url}/api/v1/users/me`, {
            headers: { authorization: `Bearer ${await t.token(sub)}` },
          });
          return (await me.json()) as { id: string };
        }),
      );
      const payloads = users.map((user) =>
        JSON.stringify(
          eventOf(
            'customer.subscription.created',
            subscriptionObject({ metadata: { user_id: user.id } }),
          ),
        ),
      );
      const responses = await Promise.all(
        payloads.flatMap((payload) =>
          Array.from({ length: 20 }, (_, i) =>
            fetch(`${services[i % 2]!.url}/api/v1/webhooks/payments`, {
              method: 'POST',
              body: payload,
              headers: signedHeaders(payload, 'whsec_local_simulator'),
            }),
          ),
        ),
      );
      assert.deepEqual([...new Set(responses.map((r) => r.status))], [200]);
      const rows = await t.composition.db.query<{ type: string }>(
        'SELECT type FROM outbound_events',
      );
      assert.deepEqual(
        rows.map((r) => r.type),
        ['tier.changed', 'tier.changed', 'tier.changed'],
      );
      await until('every event delivered, no attempt under way', async () => {
        const [row] = await t.composition.db.query<{ delivered: number; leased: number }>(
          `SELECT count(*) FILTER (WHERE state = 'delivered')::int AS delivered,
             count(*) FILTER (WHERE lease_holder IS NOT NULL)::int AS leased
           FROM outbound_events`,
        );
        return row!.delivered === 3 && row!.leased === 0;
      });
      await bothWorkersClaimAgain(t);
      await until('every attempt the new claims started answered', async () => {
        const leased = await t.composition.db.query(
          'SELECT 1 FROM outbound_events WHERE lease_holder IS NOT NULL',
        );
        return leased.length === 0;
      });
      const ids = receiver.arrivals.map((a) => a.id);
      assert.equal(ids.length, 3, 'each event sent once, by one of the two instances');
      assert.equal(new Set(ids).size, 3);
    });
  },
);

/** Polls `done` every 20 ms until it holds; fails, naming `what`, after 15 s. */
async function until(what: string, done: () => Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 15_000; !(await done()); await sleep(20))
    if (Date.now() > deadline) assert.fail(`not within 15 s: ${what}`);
}

/**
 * Each worker's next claim, seen and then let through: the outbox is locked against writes, so
 * the claim (an UPDATE) waits; once two claims wait at once, the two workers (a worker runs one
 * round at a time) are both in a round begun after this call. The lock is released and this
 * resolves once both claims have finished.
 */
async function bothWorkersClaimAgain(t: TestApp): Promise<void> {
  const { db } = t.composition;
  const waitingClaims = () =>
    db.query<{ pid: string; started: string }>(
      `SELECT a.pid::text AS pid, a.query_start::text AS started FROM pg_stat_activity a
       WHERE a.datname = current_database() AND a.state = 'active'
         AND a.wait_event_type = 'Lock' AND a.query LIKE 'WITH due AS (%'`,
    );
  let claims: { pid: string; started: string }[] = [];
  await db.transaction(async (tx) => {
    await tx.query('LOCK TABLE outbound_events IN SHARE MODE');
    await until('both workers waiting to claim', async () => {
      claims = await waitingClaims();
      return claims.length === 2;
    });
  });
  await until('both claims finished', async () => {
    const running = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE state = 'active'
         AND (pid::text, query_start::text) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
      [claims.map((c) => c.pid), claims.map((c) => c.started)],
    );
    return running[0]!.n === 0;
  });
}
