// A start-up that fails says why: a bad configuration names every variable at fault, one line
// each; an unreachable DATABASE_URL its cause (connection refused), host and port, on one line,
// never the password; a port in use the address and the variable to change, whichever listener
// (the API, the payment simulator, the metrics) it was.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { freePort } from '../../support/free-port.ts';
import { freshDataDir } from '../helpers/data-dir.ts';
import { onPostgres } from '../helpers/database.ts';
import { nodeArgs } from '../helpers/entry.ts';

/** The server process started on `env`: its exit code and stderr. */
async function start(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const child = spawn(process.execPath, nodeArgs('server'), {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const [code] = await once(child, 'exit');
  return { code, stderr };
}

/** The pid in `cluster`'s postmaster.pid when that process is alive, else null. */
async function runningPostmaster(cluster: string): Promise<number | null> {
  const lock = await readFile(join(cluster, 'postmaster.pid'), 'utf8').catch(() => null);
  const pid = Number(lock?.split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
}

describe(
  'start-up failure',
  { skip: onPostgres && 'no database of the suite: run once, in the first half' },
  () => {
    test('a bad PORT, DATABASE_URL and LOG_LEVEL: the three on stderr, one line each, exit 1', async () => {
      const { code, stderr } = await start({
        PORT: 'abc',
        DATABASE_URL: 'garbage',
        LOG_LEVEL: 'loud',
      });
      assert.equal(code, 1);
      assert.deepEqual(
        stderr
          .trimEnd()
          .split('\n')
          .map((line) => /^Invalid configuration: (\w+) /.exec(line)?.[1])
          .sort(),
        ['DATABASE_URL', 'LOG_LEVEL', 'PORT'],
        stderr,
      );
    });

    test('an unreachable DATABASE_URL: the cause, host and port on stderr, no password, exit 1', async () => {
      const port = await freePort();
      const { code, stderr } = await start({
        PORT: '0',
        PAYMENTS_SIMULATOR_PORT: '0',
        DATABASE_URL: `postgres://billing:hunter2-secret@127.0.0.1:${port}/billing`,
      });
      assert.equal(code, 1);
      assert.equal(stderr.trimEnd().split('\n').length, 1, stderr);
      assert.match(stderr, /^Start-up failed: database unavailable: .*ECONNREFUSED/);
      assert.match(stderr, new RegExp(`127\\.0\\.0\\.1:${port}`));
      assert.doesNotMatch(stderr, /hunter2/);
    });

    test('a busy PORT on the embedded database: the database it started is stopped before the exit', async () => {
      const taken = createServer();
      taken.listen(0, '127.0.0.1');
      await once(taken, 'listening');
      const dataDir = freshDataDir('billing-busy-embedded');
      try {
        const { code, stderr } = await start({
          DATA_DIR: dataDir,
          PORT: String((taken.address() as { port: number }).port),
          PAYMENTS_SIMULATOR_PORT: '0',
        });
        assert.equal(code, 1, stderr);
        assert.match(stderr, /is in use by another process/);
        assert.equal(await runningPostmaster(join(dataDir, 'postgres')), null);
      } finally {
        taken.close();
        await rm(dataDir, { recursive: true, force: true });
      }
    });

    for (const variable of ['PORT', 'PAYMENTS_SIMULATOR_PORT', 'METRICS_PORT']) {
      test(`a busy ${variable}: the address and the variable to change, one line, exit 1`, async () => {
        const taken = createServer();
        taken.listen(0, '127.0.0.1');
        await once(taken, 'listening');
        const busy = String((taken.address() as { port: number }).port);
        const dataDir = freshDataDir('billing-busy-port');
        try {
          const { code, stderr } = await start({
            DATABASE_URL: 'memory://',
            DATA_DIR: dataDir,
            PORT: '0',
            PAYMENTS_SIMULATOR_PORT: '0',
            [variable]: busy,
          });
          assert.equal(code, 1);
          assert.equal(stderr.trimEnd().split('\n').length, 1, stderr);
          assert.match(
            stderr,
            new RegExp(
              `^Start-up failed: 127\\.0\\.0\\.1:${busy} is in use by another process: stop it, or set ${variable} to a free port`,
            ),
          );
        } finally {
          taken.close();
          await rm(dataDir, { recursive: true, force: true });
        }
      });
    }
  },
);
