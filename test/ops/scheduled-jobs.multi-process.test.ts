// The scheduled jobs across instances: two service processes share one PostgreSQL, with
// BILLING_RECONCILE_INTERVAL=10s and a slow provider (each list call takes 700 ms). The
// reconciliation runs about once per interval, never on both at once, and never again before the
// interval has passed since the last complete run on either; retention runs once. Both instances'
// metrics tell the same last complete run, and the repairs are counted once. An instance killed in
// the middle of a run holds the job up for one interval, not for a minute.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, bearer, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/browser.ts';
import { onPostgres } from '../helpers/database.ts';
import { startFaultyProvider, type FaultyProvider } from '../helpers/faulty-provider.ts';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.ts';

interface RunLine {
  msg?: string;
  time: number;
  ms: number;
  pid: number;
  repaired?: number;
}

const INTERVAL_S = 10;

async function metric(url: string, name: string): Promise<number | null> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(name));
  return line === undefined ? null : Number(line.split(' ').at(-1));
}

describe(
  'scheduled jobs on two instances (PostgreSQL)',
  { skip: !onPostgres && 'needs PostgreSQL' },
  () => {
    let provider: FaultyProvider;
    let t: TestApp;
    let services: ServiceProcess[] = [];
    before(async () => {
      provider = await startFaultyProvider();
      t = await buildTestApp(provider.env);
      // Drift for the first run to repair: a subscription made elsewhere for a user of ours.
      const me = await t.app.inject({
        method: 'GET',
        url: '/api/v1/users/me',
        headers: bearer(await t.token('scheduled')),
      });
      const made = await fetch(`${provider.simulatorUrl}/_sim/drift/subscriptions`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer sk_test_simulator',
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({
          email: 'scheduled@example.com',
          price: 'price_sim_pro',
          'metadata[user_id]': me.json().id,
        }).toString(),
      });
      assert.equal(made.status, 200);
      provider.front.inject('GET', /^\/v1\/subscriptions$/, { kind: 'delay', ms: 700 });
      const env = { ...t.env, BILLING_RECONCILE_INTERVAL: `${INTERVAL_S}s` };
      services = await Promise.all([startServiceProcess(env), startServiceProcess(env)]);
    });
    after(async () => {
      await Promise.all(services.map((s) => s.stop()));
      await t?.close();
      await provider?.close();
    });

    const runs = (job: string) =>
      services
        .flatMap((s) => s.logged<RunLine>())
        .filter((line) => line.msg === `${job}: complete run`)
        .map((line) => ({ ...line, start: line.time - line.ms }))
        .sort((a, b) => a.start - b.start);

    test('one instance at a time, once per interval; metrics agree on both', async () => {
      const until = Date.now() + 45_000;
      while (runs('reconcile').length < 3 && Date.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 250));
      const reconciles = runs('reconcile');
      assert.ok(reconciles.length >= 3, `${reconciles.length} runs`);
      for (const [i, run] of reconciles.entries()) {
        assert.ok(run.ms >= 700, 'each run waited on the slow provider');
        const previous = reconciles[i - 1];
        if (previous === undefined) continue;
        assert.ok(
          run.start >= previous.time,
          `run ${i} (pid ${run.pid}) started before run ${i - 1} (pid ${previous.pid}) ended`,
        );
        assert.ok(
          run.start - previous.time >= INTERVAL_S * 1000 - 500,
          `run ${i} started ${run.start - previous.time} ms after the last complete run`,
        );
      }
      assert.deepEqual(
        reconciles.map((r) => r.repaired),
        [1, ...Array(reconciles.length - 1).fill(0)],
      );
      assert.equal(runs('retention').length, 1, 'retention ran once, on one instance');

      // Every instance reports the last complete run, whichever ran it (each look reads it).
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const last = runs('reconcile').at(-1)!;
      const [a, b] = await Promise.all(
        services.map((s) =>
          metric(s.url, 'scheduled_job_last_completed_timestamp_seconds{job="reconcile"}'),
        ),
      );
      assert.equal(a, b);
      assert.ok(Math.abs(a! - last.time / 1000) < 1, `${a} vs ${last.time / 1000}`);
      const repairs = await Promise.all(
        services.map((s) => metric(s.url, 'reconcile_repairs_total')),
      );
      assert.equal(
        repairs.reduce((sum, n) => sum! + (n ?? 0), 0),
        1,
      );
      for (const s of services) assert.equal(await metric(s.url, 'reconcile_last_run_repairs'), 0);
    });

    test('an instance killed while it runs the job: the other runs it within the interval, not a minute later', async () => {
      // The holder is `host/pid/nonce`; each run waits 700 ms on the provider, long enough to catch.
      const leaseHolder = async () => {
        const [row] = await t.composition.db.query<{ holder: string }>(
          "SELECT holder FROM job_leases WHERE job = 'reconcile' AND holder IS NOT NULL",
        );
        const pid = Number(row?.holder.split('/')[1]);
        return services.find((s) => s.child.pid === pid);
      };
      const dying = await until(leaseHolder, (holder) => holder !== undefined, 30_000);
      assert.ok(dying !== undefined, 'no instance took the reconcile lease within 30 s');
      const survivor = services.find((s) => s !== dying)!;
      dying.child.kill('SIGKILL');
      const killedAt = Date.now();
      const takenOver = async () =>
        survivor
          .logged<RunLine>()
          .find((line) => line.msg === 'reconcile: complete run' && line.time - line.ms > killedAt);
      const run = await until(takenOver, (line) => line !== undefined, 75_000);
      assert.ok(run !== undefined, 'the survivor never ran the job');
      // Lease and interval are 10 s here: the survivor claims it once the lease runs out.
      const after = run.time - run.ms - killedAt;
      assert.ok(after < 25_000, `the survivor started ${after} ms after the holder died`);
    });
  },
);
