// One owner per data directory, with two real processes: a second service on the same DATA_DIR
// refuses at once with one line naming DATA_DIR and the pid holding it; a service killed with
// SIGKILL leaves its lock (and its PostgreSQL) behind, and the next one takes both over and has
// every write the killed one acknowledged.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { rm } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { onPostgres } from '../helpers/database.ts';
import {
  cliToken,
  embeddedDataDir,
  embeddedEnv,
  profile,
  runServiceToExit,
} from '../helpers/embedded-service.ts';
import { freePort } from '../../support/free-port.ts';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.ts';

describe(
  'one owner per DATA_DIR (embedded PostgreSQL)',
  { skip: onPostgres && 'the embedded database: run once, in the first half' },
  () => {
    let dataDir: string;
    let env: Record<string, string>;
    const services: ServiceProcess[] = [];
    before(async () => {
      dataDir = await embeddedDataDir();
      env = await embeddedEnv(dataDir);
    });
    after(async () => {
      for (const service of services) await service.stop();
      await rm(dataDir, { recursive: true, force: true });
    });

    test('a second service on the same DATA_DIR refuses at once, naming DATA_DIR and the pid', async () => {
      const first = await startServiceProcess(env);
      services.push(first);
      const started = Date.now();
      const second = await runServiceToExit({
        ...env,
        PAYMENTS_SIMULATOR_PORT: String(await freePort()),
      });
      assert.equal(second.code, 1);
      assert.equal(second.stderr.trim().split('\n').length, 1, second.stderr);
      assert.match(
        second.stderr,
        new RegExp(`DATA_DIR ${dataDir} is held by process ${first.child.pid}\\b`),
      );
      assert.ok(Date.now() - started < 15_000, 'refused at once, without starting anything');
      assert.equal((await fetch(`${first.url}/readyz`)).status, 200, 'the first one serves on');
    });

    test('after SIGKILL the next service takes DATA_DIR over and keeps every acknowledged write', async () => {
      const killed = services[0]!;
      const token = await cliToken(env, 'owner-ada');
      const before = await profile(killed.url, token);
      killed.child.kill('SIGKILL');
      await once(killed.child, 'exit');

      const next = await startServiceProcess(env);
      services.push(next);
      assert.deepEqual(await profile(next.url, token), before);
    });
  },
);
