// One provider customer per user across instances: two service processes on one PostgreSQL
// answer 10 concurrent first checkouts for one user with one customer. And a key the provider
// rejects is a 502 plus an error log line, with the key in neither.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { sessionsBehind } from '../helpers/checkout.ts';
import { onPostgres } from '../helpers/database.ts';
import {
  besideTestApp,
  startServiceProcesses,
  type ServiceProcess,
} from '../helpers/service-process.ts';
import { requestLogged } from '../helpers/request-log.ts';

describe(
  'checkout across two processes (PostgreSQL)',
  { skip: !onPostgres && 'needs PostgreSQL' },
  () => {
    let t: TestApp;
    const services: ServiceProcess[] = [];
    before(async () => {
      t = await buildTestApp();
      const env = besideTestApp(t);
      await startServiceProcesses(services, [
        env,
        env,
        { ...env, PAYMENTS_API_KEY: 'sk_test_rejected_key' },
      ]);
    });
    after(async () => {
      await Promise.all(services.map((s) => s.stop()));
      await t?.close();
    });

    const checkout = async (service: ServiceProcess, token: string) =>
      fetch(`${service.url}/api/v1/billing/checkout`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{}',
      });

    test('10 concurrent first checkouts over two instances make one customer', async () => {
      const token = await t.token('multi-checkout');
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, i) => checkout(services[i % 2]!, token)),
      );
      const sessions = await sessionsBehind(t, responses);
      assert.equal(new Set(sessions.map((s) => s.customer)).size, 1);
      const rows = await t.composition.db.query<{ payments_customer_id: string }>(
        "SELECT payments_customer_id FROM users WHERE idp_id = 'multi-checkout'",
      );
      assert.deepEqual(rows, [{ payments_customer_id: sessions[0]!.customer }]);
    });

    test('a rejected API key: 502, an error log line, and the key appears nowhere', async () => {
      const response = await checkout(services[2]!, await t.token('rejected-key-user'));
      assert.equal(response.status, 502);
      const body = await response.text();
      assert.deepEqual(JSON.parse(body), { detail: 'Payment provider unavailable' });
      await requestLogged(services[2]!, response);
      const logged = services[2]!.output.join('\n');
      assert.match(logged, /payment provider rejected our API key/);
      assert.ok(!logged.includes('sk_test_rejected_key') && !body.includes('sk_test_rejected_key'));
    });
  },
);
