// Exactly once across instances: two service processes share one PostgreSQL, and 20 concurrent
// deliveries of one event split between them apply its effects once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { onPostgres } from '../helpers/database.ts';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.ts';
import { eventOf, signedHeaders, subscriptionObject } from '../helpers/stripe-fixtures.ts';
import { SUBSCRIPTION_WRITE_AUDIT } from '../helpers/write-audit.ts';

describe(
  'webhook exactly once across two processes (PostgreSQL)',
  { skip: !onPostgres && 'needs PostgreSQL' },
  () => {
    let t: TestApp;
    let services: ServiceProcess[] = [];
    before(async () => {
      t = await buildTestApp();
      await t.composition.db.exec(SUBSCRIPTION_WRITE_AUDIT);
      services = await Promise.all([startServiceProcess(t.env), startServiceProcess(t.env)]);
    });
    after(async () => {
      await Promise.all(services.map((s) => s.stop()));
      await t?.close();
    });

    test('20 concurrent deliveries over two instances: one processed, the rest duplicate, one write', async () => {
      const me = await fetch(`${services[0]!.url}/api/v1/users/me`, {
        headers: { authorization: `Bearer ${await t.token('ivy')}` },
      });
      const user = (await me.json()) as { id: string };
      const subscription = subscriptionObject({ metadata: { user_id: user.id } });
      const payload = JSON.stringify(eventOf('customer.subscription.created', subscription));
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          fetch(`${services[i % 2]!.url}/api/v1/webhooks/payments`, {
            method: 'POST',
            body: payload,
            headers: signedHeaders(payload, 'whsec_local_simulator'),
          }),
        ),
      );
      assert.deepEqual([...new Set(responses.map((r) => r.status))], [200]);
      const outcomes = (
        await Promise.all(
          responses.map(async (r) => ((await r.json()) as { status: string }).status),
        )
      ).sort();
      assert.deepEqual(outcomes, ['processed', ...Array(19).fill('duplicate')].sort());
      const writes = await t.composition.db.query(
        'SELECT 1 FROM subscription_writes WHERE subscription_id = $1',
        [subscription.id],
      );
      assert.equal(writes.length, 1);
    });
  },
);
