// The per-user limit holds across instances: two service processes share one PostgreSQL and a
// user gets BILLING_CHECKOUT_RATE_LIMIT checkouts a minute in all, whichever instance answers,
// not that many from each; portal sessions are counted apart.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, bearer, type TestApp } from '../helpers/app.ts';
import { onPostgres } from '../helpers/database.ts';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.ts';

describe(
  'the per-user limit on two instances (PostgreSQL)',
  { skip: !onPostgres && 'needs PostgreSQL' },
  () => {
    let t: TestApp;
    let services: ServiceProcess[] = [];
    before(async () => {
      t = await buildTestApp();
      const env = { ...t.env, BILLING_CHECKOUT_RATE_LIMIT: '3' };
      services = await Promise.all([startServiceProcess(env), startServiceProcess(env)]);
    });
    after(async () => {
      await Promise.all(services.map((s) => s.stop()));
      await t?.close();
    });

    const post = async (i: number, path: string, token: string) =>
      (
        await fetch(`${services[i % 2]!.url}/api/v1/billing/${path}`, {
          method: 'POST',
          headers: { ...bearer(token), 'content-type': 'application/json' },
          body: '{}',
        })
      ).status;

    test('six checkouts alternating between the instances: three pass, three get 429', async () => {
      const token = await t.token('limited-everywhere');
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push(await post(i, 'checkout', token));
      assert.deepEqual(statuses, [200, 200, 200, 429, 429, 429]);
      // At once, from a fresh user: still three in all.
      const other = await t.token('limited-at-once');
      const atOnce = await Promise.all(
        Array.from({ length: 8 }, (_, i) => post(i, 'checkout', other)),
      );
      assert.equal(atOnce.filter((s) => s === 200).length, 3, atOnce.join(','));
      assert.equal(atOnce.filter((s) => s === 429).length, 5, atOnce.join(','));
      // The portal is counted apart: the limited user still opens it.
      assert.equal(await post(0, 'portal', token), 200);
    });
  },
);
