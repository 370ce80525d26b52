// Outbound events across two service processes on one PostgreSQL: 20 concurrent deliveries of one
// provider event, split between them, give one event, and their two delivery workers send it once.
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
      for (let waited = 0; receiver.arrivals.length < 3 && waited < 15_000; waited += 100)
        await sleep(100);
      await sleep(2_500); // both workers have looked again meanwhile
      const ids = receiver.arrivals.map((a) => a.id);
      assert.equal(ids.length, 3, 'each event sent once, by one of the two instances');
      assert.equal(new Set(ids).size, 3);
    });
  },
);
