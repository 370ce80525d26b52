// The embedded database's trust boundary and restarts after a kill, with real processes:
// - a container's pid 1 killed with SIGKILL starts again (its owner file names pid 1: its own);
// - a postmaster.pid naming another process (anyone who can write that file could put a root
//   process there) is never signalled: start-up goes on and that process lives; one dressed as
//   this cluster's server is signalled as the server's user only, so a root one lives; a real
//   leftover server started through a symlink to the same DATA_DIR is recognised and stopped;
// - the server asks every connection for a password, so being its OS user is not enough, and
//   that user cannot read the password; a cluster made with trust authentication is switched.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { freshDataDir } from '../helpers/data-dir.ts';
import { onPostgres } from '../helpers/database.ts';
import {
  cliToken,
  embeddedEnv,
  profile,
  runServiceToExit,
  stopLeftoverPostgres,
} from '../helpers/embedded-service.ts';
import { startServiceProcess } from '../helpers/service-process.ts';
import { isRunning } from '../../src/adapters/process-identity.ts';

const asRoot = process.getuid?.() === 0;
const serverUser = asRoot
  ? {
      uid: Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout),
      gid: Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout),
    }
  : null;

/**
 * What the server answers a startup message with no password, sent as the server's own OS user
 * (postgres as root, else this user): PostgreSQL's authentication request code, 0 for "you are in"
 * (trust), 10 for SASL (SCRAM: a password is needed).
 */
function authenticationAsked(dataDir: string): number {
  const script = `
    const socket = require('node:net').connect(${JSON.stringify(join(dataDir, 'postgres-socket', '.s.PGSQL.5432'))});
    const params = Buffer.from('user\\0postgres\\0database\\0postgres\\0\\0');
    const head = Buffer.alloc(8); head.writeInt32BE(8 + params.length); head.writeInt32BE(196608, 4);
    socket.on('connect', () => socket.write(Buffer.concat([head, params])));
    socket.on('data', (data) => { console.log(data[0] === 82 ? data.readInt32BE(5) : 'error ' + data.toString('latin1', 5)); socket.destroy(); });
    socket.on('error', (error) => { console.log('error ' + error.message); });`;
  const run = spawnSync(process.execPath, ['-e', script], {
    encoding: 'utf8',
    ...(serverUser ?? {}),
  });
  return Number(run.stdout.trim());
}

describe(
  'the embedded database: restarts after a kill, and who may connect',
  { skip: onPostgres && 'the embedded database: run once, in the first half' },
  () => {
    const dirs: string[] = [];
    const fresh = () => {
      const dir = freshDataDir('billing-embedded-trust');
      dirs.push(dir);
      return dir;
    };
    after(async () => {
      for (const dir of dirs) {
        await stopLeftoverPostgres(dir);
        await rm(dir, { recursive: true, force: true });
      }
    });

    test(
      'as pid 1 of its own pid namespace (a container), SIGKILL, then a restart serves the same data',
      { skip: !(asRoot && existsSync('/usr/bin/unshare')) && 'needs root and unshare' },
      async () => {
        const env = await embeddedEnv(fresh());
        const prefix = ['unshare', '--pid', '--fork', '--mount-proc', '--kill-child=SIGKILL'];
        const first = await startServiceProcess(env, { prefix });
        const token = await cliToken(env, 'pid-one');
        const before = await profile(first.url, token);
        first.child.kill('SIGKILL'); // unshare dies, its child (pid 1 inside) gets SIGKILL, and so does every process of the namespace
        await once(first.child, 'exit');
        assert.equal(
          (await readFile(join(env.DATA_DIR!, 'owner.pid'), 'utf8')).split('\n')[0],
          '1',
          'the killed owner was pid 1',
        );

        const second = await startServiceProcess(env, { prefix });
        try {
          assert.deepEqual(await profile(second.url, token), before);
        } finally {
          second.child.kill('SIGKILL'); // unshare ignores SIGTERM while it waits for its child
          await once(second.child, 'exit');
        }
      },
    );

    test('a postmaster.pid naming another process is not signalled: start-up goes on, and that process lives', async () => {
      const env = await embeddedEnv(fresh());
      await (await startServiceProcess(env)).stop();
      const victim = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
        stdio: 'ignore',
      }); // SIGINT would end it
      try {
        const lockFile = join(env.DATA_DIR!, 'postgres', 'postmaster.pid');
        await writeFile(lockFile, `${victim.pid}\n${join(env.DATA_DIR!, 'postgres')}\n`);
        const service = await startServiceProcess(env);
        await service.stop();
        assert.equal(
          victim.exitCode ?? victim.signalCode,
          null,
          'the process named in the file still runs',
        );
      } finally {
        victim.kill('SIGKILL');
      }
    });

    test(
      "a root process dressed as this cluster's server is signalled as the server's user only: it lives, start-up says why",
      { skip: !asRoot && 'needs root' },
      async () => {
        const env = await embeddedEnv(fresh());
        await (await startServiceProcess(env)).stop();
        const cluster = join(env.DATA_DIR!, 'postgres');
        // argv: postgres -e <wait> -- -D <cluster>, as the real server's command line reads
        const victim = spawn(
          'bash',
          [
            '-c',
            `exec -a postgres ${process.execPath} -e 'setInterval(() => {}, 1000)' -- -D ${cluster}`,
          ],
          { stdio: 'ignore' },
        );
        try {
          await new Promise((resolve) => setTimeout(resolve, 300));
          await writeFile(join(cluster, 'postmaster.pid'), `${victim.pid}\n${cluster}\n`);
          const started = await runServiceToExit(env);
          assert.equal(started.code, 1);
          assert.match(
            started.stderr,
            new RegExp(`\\(process ${victim.pid}\\) could not be signalled as postgres`),
          );
          assert.equal(victim.exitCode ?? victim.signalCode, null, 'the root process still runs');
        } finally {
          victim.kill('SIGKILL');
        }
      },
    );

    test("a leftover server started through another path to the same DATA_DIR (a symlink) is this cluster's: stopped, and the data kept", async () => {
      const real = fresh();
      const alias = fresh();
      await mkdir(real, { recursive: true, mode: 0o700 });
      await symlink(real, alias);
      const env = await embeddedEnv(alias);
      const first = await startServiceProcess(env);
      const token = await cliToken(env, 'alias-ada');
      const before = await profile(first.url, token);
      const leftover = Number.parseInt(
        await readFile(join(real, 'postgres', 'postmaster.pid'), 'utf8'),
        10,
      );
      first.child.kill('SIGKILL'); // its server runs on, started with -D <alias>/postgres
      await once(first.child, 'exit');
      const second = await startServiceProcess({ ...env, DATA_DIR: real });
      try {
        assert.equal(
          isRunning({ pid: leftover, started: null }), // a zombie counts as stopped: pid 1 may not reap
          false,
          'the leftover server was stopped, not left beside the new one',
        );
        assert.deepEqual(await profile(second.url, token), before);
      } finally {
        await second.stop();
      }
    });

    test("every connection is asked for a password, which the server's OS user cannot read; a trust cluster is switched", async () => {
      const env = await embeddedEnv(fresh());
      const dataDir = env.DATA_DIR!;
      let service = await startServiceProcess(env);
      assert.equal(authenticationAsked(dataDir), 10, 'SCRAM, not trust');
      if (serverUser !== null) {
        const read = spawnSync(
          process.execPath,
          [
            '-e',
            `require('node:fs').readFileSync(${JSON.stringify(join(dataDir, 'postgres-password'))})`,
          ],
          { ...serverUser, encoding: 'utf8' },
        );
        assert.match(read.stderr, /EACCES/, "the server's user cannot read the password");
      }
      await service.stop();

      // A cluster an earlier version made: trust, no password file.
      const hba = join(dataDir, 'postgres', 'pg_hba.conf');
      await writeFile(hba, readFileSync(hba, 'utf8').replaceAll('scram-sha-256', 'trust'));
      await rm(join(dataDir, 'postgres-password'));
      service = await startServiceProcess(env);
      try {
        assert.equal(authenticationAsked(dataDir), 10, 'switched to SCRAM on start');
        assert.doesNotMatch(await readFile(hba, 'utf8'), /^\s*(local|host)\s.*\strust\s*$/m);
        assert.equal((await profile(service.url, await cliToken(env, 'trust-ada'))).tier, 'free');
      } finally {
        await service.stop();
      }
    });
  },
);
