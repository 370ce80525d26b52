// The paths a newcomer or an operator takes for the first time, each from nothing: a DATA_DIR that
// does not exist (nested, relative, on another filesystem), the first `npm run token` and the first
// operator command before any start, a DATA_DIR that cannot be made, and a second start after the
// first was killed. Real processes on the embedded PostgreSQL, as `npm start` runs.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, statSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { after, describe, test } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { freshDataDir } from '../helpers/data-dir.ts';
import { onPostgres } from '../helpers/database.ts';
import {
  cliToken,
  embeddedEnv,
  profile,
  runServiceToExit,
  stopLeftoverPostgres,
} from '../helpers/embedded-service.ts';
import { freePort } from '../../support/free-port.ts';
import { startServiceProcess } from '../helpers/service-process.ts';

describe(
  'first runs, from nothing (embedded PostgreSQL)',
  { skip: onPostgres && 'the embedded database: run once, in the first half' },
  () => {
    const made: string[] = [];
    const fresh = (label: string) => {
      const dir = freshDataDir(label);
      made.push(dir);
      return dir;
    };
    after(async () => {
      for (const dir of made) {
        await stopLeftoverPostgres(dir);
        await rm(dir, { recursive: true, force: true });
      }
    });

    test('the first token and the first operator command, before any start, make DATA_DIR; the service then started accepts that token', async () => {
      const dataDir = join(fresh('billing-first-command'), 'nested', 'data');
      const env = await embeddedEnv(dataDir);
      const token = await cliToken(env, 'first-ada');
      assert.equal(statSync(dataDir).mode & 0o777, 0o700, 'DATA_DIR is made 0700');
      const migrate = await runCli(['migrate'], env);
      assert.equal(migrate.code, 0, migrate.stderr);

      const service = await startServiceProcess(env);
      try {
        assert.equal((await profile(service.url, token)).tier, 'free');
      } finally {
        await service.stop();
      }
    });

    test('npm run token and the operator CLI follow the running service whatever its ports, with nothing repeated', async () => {
      const dataDir = fresh('billing-other-ports');
      const [port, simulatorPort] = [await freePort(), await freePort()];
      const service = await startServiceProcess({
        ...(await embeddedEnv(dataDir)),
        PORT: String(port),
        PAYMENTS_SIMULATOR_PORT: String(simulatorPort),
      });
      try {
        const beside = { NODE_ENV: 'test', DATA_DIR: dataDir, DATABASE_URL: '' }; // no PORT, no PAYMENTS_SIMULATOR_PORT
        const token = await cliToken(beside, 'ports-ada');
        assert.equal(
          (await profile(service.url, token)).tier,
          'free',
          'the token names the issuer of the service on its port',
        );
        const sync = await runCli(['sync-user', 'ports-ada'], beside);
        assert.equal(sync.code, 0, sync.stderr);
      } finally {
        await service.stop();
      }
      assert.equal(
        existsSync(join(dataDir, 'service.json')),
        false,
        'the record goes with the service',
      );
    });

    test('a relative DATA_DIR is made under the working directory', async () => {
      const dataDir = fresh('billing-relative');
      const env = { ...(await embeddedEnv(dataDir)), DATA_DIR: relative(process.cwd(), dataDir) };
      assert.ok(!env.DATA_DIR.startsWith('/'));
      const service = await startServiceProcess(env);
      await service.stop();
      assert.ok(existsSync(join(dataDir, 'postgres', 'PG_VERSION')));
    });

    test(
      'a DATA_DIR on another filesystem (/dev/shm, a tmpfs) works',
      { skip: !existsSync('/dev/shm') && 'no /dev/shm here' },
      async () => {
        const dataDir = join('/dev/shm', `billing-shm-${process.pid}`);
        made.push(dataDir);
        const env = await embeddedEnv(dataDir);
        const service = await startServiceProcess(env);
        assert.equal((await profile(service.url, await cliToken(env, 'shm-ada'))).tier, 'free');
        await service.stop();
      },
    );

    test('a DATA_DIR that cannot be made stops start-up, and the first command, with one line naming it and why', async () => {
      const file = fresh('billing-not-a-dir');
      await writeFile(file, 'a file, not a directory');
      const env = await embeddedEnv(join(file, 'data'));
      const started = await runServiceToExit(env);
      assert.equal(started.code, 1);
      assert.equal(started.stderr.trim().split('\n').length, 1, started.stderr);
      assert.match(
        started.stderr,
        new RegExp(
          `DATA_DIR ${join(file, 'data')} cannot be created: ${file} is a file, not a directory$`,
          'm',
        ),
      );
      const command = await runCli(['migrate'], env);
      assert.equal(command.code, 1);
      assert.match(command.stderr, /^error: DATA_DIR .* cannot be created: /m);
    });

    test('a second start after the first was killed (SIGKILL) serves, with the same data', async () => {
      const env = await embeddedEnv(fresh('billing-second-start'));
      const first = await startServiceProcess(env);
      const token = await cliToken(env, 'second-ada');
      const before = await profile(first.url, token);
      first.child.kill('SIGKILL');
      await once(first.child, 'exit');
      const second = await startServiceProcess(env);
      try {
        assert.deepEqual(await profile(second.url, await cliToken(env, 'second-ada')), before);
      } finally {
        await second.stop();
      }
    });
  },
);
