// Organisations on two real service processes sharing one PostgreSQL (and one provider, the test
// app's simulator): concurrent first requests of a new organisation's members make one
// organisation and one membership each; ten concurrent first checkouts by two managers make one
// provider customer; and a burst of new members, with both instances' seat engines running, makes
// a handful of quantity updates, not one per member, ending at the right quantity.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, deliverWebhooks, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/browser.ts';
import { sessionsBehind } from '../helpers/checkout.ts';
import { onPostgres } from '../helpers/database.ts';
import { memberToken, orgBilling, orgSubscriptionId } from '../helpers/organizations.ts';
import {
  besideTestApp,
  startServiceProcesses,
  type ServiceProcess,
} from '../helpers/service-process.ts';
import { providerCalls, resetProviderCalls, simulatorClient } from '../helpers/simulator-client.ts';

const MEMBERS = 40;

describe(
  'organisations on two service processes (PostgreSQL)',
  { skip: !onPostgres && 'needs PostgreSQL' },
  () => {
    let t: TestApp;
    const services: ServiceProcess[] = [];
    before(async () => {
      t = await buildTestApp();
      await deliverWebhooks(t);
      const env = besideTestApp(t);
      await startServiceProcesses(services, [env, env]);
    });
    after(async () => {
      await Promise.all(services.map((service) => service.stop()));
      await t?.close();
    });

    const call = async (i: number, path: string, token: string, method = 'GET') =>
      fetch(`${services[i % 2]!.url}/api/v1/${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(method === 'POST' && { 'content-type': 'application/json' }),
        },
        body: method === 'POST' ? '{}' : undefined,
      });
    const count = async (sql: string, params: string[]) =>
      (await t.composition.db.query<{ n: number }>(sql, params))[0]!.n;

    test(`${MEMBERS} members' concurrent first requests, split across both: one organisation, one membership each`, async () => {
      const warmUp = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => call(i, 'users/me', await t.token(`warm-${i}`))),
      );
      assert.deepEqual([...new Set(warmUp.map((r) => r.status))], [200]);
      const tokens = await Promise.all(
        Array.from({ length: MEMBERS }, (_, i) =>
          memberToken(t, `crowd-${i}`, 'crowdco', 'member'),
        ),
      );
      const responses = await Promise.all(tokens.map((token, i) => call(i, 'users/me', token)));
      assert.deepEqual([...new Set(responses.map((r) => r.status))], [200]);
      assert.equal(
        await count('SELECT count(*)::int AS n FROM organizations WHERE idp_org_id = $1', [
          'crowdco',
        ]),
        1,
      );
      assert.equal(
        await count(
          `SELECT count(*)::int AS n FROM memberships m JOIN organizations o ON o.id = m.organization_id
           WHERE o.idp_org_id = $1`,
          ['crowdco'],
        ),
        MEMBERS,
      );
    });

    test('ten concurrent first checkouts by two managers on two instances: one provider customer', async () => {
      const managers = await Promise.all([
        memberToken(t, 'race-ann', 'raceco', 'owner'),
        memberToken(t, 'race-bob', 'raceco', 'admin'),
      ]);
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          call(i, 'orgs/current/billing/checkout', managers[Math.floor(i / 2) % 2]!, 'POST'),
        ),
      );
      const sessions = await sessionsBehind(t, responses);
      assert.equal(new Set(sessions.map((s) => s.customer)).size, 1);
      const rows = await t.composition.db.query<{ payments_customer_id: string }>(
        "SELECT payments_customer_id FROM organizations WHERE idp_org_id = 'raceco'",
      );
      assert.deepEqual(rows, [{ payments_customer_id: sessions[0]!.customer }]);
    });

    test(`a burst of ${MEMBERS} new members with both seat engines running: a handful of updates, the right quantity`, async () => {
      const admin = { org: 'burstco', role: 'admin' };
      await orgBilling(t, 'burst-admin', admin);
      const checkout = await call(
        0,
        'orgs/current/billing/checkout',
        await memberToken(t, 'burst-admin', 'burstco', 'admin'),
        'POST',
      );
      const { url } = (await checkout.json()) as { url: string };
      assert.equal((await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' })).status, 303);
      await until(
        () => orgBilling(t, 'burst-admin', admin),
        (b) => b.seats.billed === 1,
      );
      await resetProviderCalls(t);
      const tokens = await Promise.all(
        Array.from({ length: MEMBERS }, (_, i) =>
          memberToken(t, `burst-${i}`, 'burstco', 'member'),
        ),
      );
      await Promise.all(tokens.map((token, i) => call(i, 'users/me', token)));
      const settled = await until(
        () => orgBilling(t, 'burst-admin', admin),
        (b) => b.seats.billed === MEMBERS + 1,
        30_000,
      );
      assert.equal(settled.seats.active, MEMBERS + 1);
      const provider = await simulatorClient(t).subscriptions.retrieve(
        await orgSubscriptionId(t, 'burstco'),
      );
      assert.equal(provider.items.data[0]!.quantity, MEMBERS + 1);
      const updates = (await providerCalls(t))['POST /v1/subscriptions/:id'] ?? 0;
      assert.ok(updates >= 1 && updates <= 4, `${updates} quantity updates for ${MEMBERS} members`);
    });
  },
);
