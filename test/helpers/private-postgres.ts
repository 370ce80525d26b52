// A PostgreSQL cluster of the test's own (scripts/postgres.sh on a free port), so the test can stop
// and start the server under a running service without touching the suite's shared cluster.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../support/free-port.ts';

const run = promisify(execFile);

export interface PrivatePostgres {
  /** postgres://… of the cluster's `postgres` database. */
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the cluster and deletes its files. */
  destroy(): Promise<void>;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'reliability-pg-'));
  const port = String(await freePort());
  const start = async () =>
    (await run('bash', ['scripts/postgres.sh', 'start', dir, port])).stdout.trim();
  const stop = async () => void (await run('bash', ['scripts/postgres.sh', 'stop', dir]));
  const url = await start();
  return {
    url,
    stop,
    start: async () => void (await start()),
    async destroy() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
