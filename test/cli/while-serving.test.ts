// Every operator command while the service serves on the embedded default, as separate processes:
// each works on the running service's data (the effect is seen through the API, and again after a
// restart), or refuses in one line; none reports success for a write that is lost. Without a
// running service, the commands that need its payment simulator refuse, and the others work alone.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { bearer } from '../helpers/app.ts';
import { runCli } from '../helpers/cli.ts';
import { onPostgres } from '../helpers/database.ts';
import { cliToken, embeddedDataDir, embeddedEnv, profile } from '../helpers/embedded-service.ts';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.ts';

/** The price the checkout page of the user's next checkout shows (pro is $15.00, team $49.00). */
async function checkoutPrice(url: string, token: string): Promise<string> {
  const response = await fetch(`${url}/api/v1/billing/checkout`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(response.status, 200, await response.clone().text());
  const page = await (await fetch((await response.json()).url)).text();
  return /\$(\d+\.\d\d)/.exec(page)?.[1] ?? 'none';
}

async function pay(url: string, token: string): Promise<void> {
  const checkout = await fetch(`${url}/api/v1/billing/checkout`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: '{}',
  });
  const paid = await fetch(`${(await checkout.json()).url}/pay`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  });
  assert.equal(paid.status, 303);
}

describe(
  'the operator CLI while the service runs (embedded PostgreSQL)',
  { skip: onPostgres && 'the embedded database: run once, in the first half' },
  () => {
    let dataDir: string;
    let env: Record<string, string>;
    let service: ServiceProcess;
    const tokens: Record<string, string> = {};
    before(async () => {
      dataDir = await embeddedDataDir();
      env = await embeddedEnv(dataDir);
      service = await startServiceProcess(env);
      for (const sub of ['cli-ada', 'cli-bo']) tokens[sub] = await cliToken(env, sub); // token: works while serving
    });
    after(async () => {
      await service.stop();
      await rm(dataDir, { recursive: true, force: true });
    });

    test('token, migrate, set-plan, sync-user, reconcile and replay-events all work on the running service', async () => {
      await profile(service.url, tokens['cli-ada']!);
      const migrate = await runCli(['migrate'], env);
      assert.equal(migrate.code, 0, migrate.stderr);
      assert.match(migrate.stdout, /database is up to date/);

      const setPlan = await runCli(['set-plan', 'cli-ada', 'team'], env);
      assert.equal(setPlan.code, 0, setPlan.stderr);
      assert.equal(
        await checkoutPrice(service.url, tokens['cli-ada']!),
        '49.00',
        'the running service sells the plan set',
      );

      await profile(service.url, tokens['cli-bo']!);
      await pay(service.url, tokens['cli-bo']!);
      const sync = await runCli(['sync-user', 'cli-bo'], env);
      assert.equal(sync.code, 0, sync.stderr);
      assert.match(sync.stdout, /^subscriptions: sub_\w+ \(active\)$/m);
      assert.match(sync.stdout, /^tier after: pro$/m);
      assert.equal((await profile(service.url, tokens['cli-bo']!)).tier, 'pro');

      const reconcile = await runCli(['reconcile'], env);
      assert.equal(reconcile.code, 0, reconcile.stderr);
      assert.match(
        reconcile.stdout,
        /^reconciled \d+ subscription\(s\): \d+ repaired, \d+ unchanged, 0 not linked to any user$/m,
      );

      const replay = await runCli(['replay-events'], env);
      assert.equal(replay.code, 0, replay.stderr);
      assert.match(
        replay.stdout,
        /^replayed \d+ event\(s\): \d+ processed, \d+ duplicate, \d+ ignored$/m,
      );
    });

    test('after a restart every change is still there', async () => {
      await service.stop();
      service = await startServiceProcess(env);
      assert.equal(await checkoutPrice(service.url, tokens['cli-ada']!), '49.00');
      assert.equal((await profile(service.url, tokens['cli-bo']!)).tier, 'pro');
    });

    test('with no service running, set-plan works alone and the commands needing the simulator refuse in one line', async () => {
      await service.stop();
      const setPlan = await runCli(['set-plan', 'cli-ada', 'pro'], env);
      assert.equal(setPlan.code, 0, setPlan.stderr);
      assert.match(setPlan.stdout, /plan team -> pro/);
      for (const args of [['sync-user', 'cli-bo'], ['reconcile'], ['replay-events']]) {
        const run = await runCli(args, env);
        assert.equal(run.code, 1);
        const errors = run.stderr.split('\n').filter((line) => line.startsWith('error:'));
        assert.deepEqual(errors.length, 1, run.stderr);
        assert.match(
          errors[0]!,
          /the payment simulator runs inside the service .*start the service \(npm start\), then run this again/,
        );
      }
      service = await startServiceProcess(env);
      assert.equal(
        await checkoutPrice(service.url, tokens['cli-ada']!),
        '15.00',
        'the plan set while stopped is the one sold',
      );
    });
  },
);
