// A PgBouncer of the test's own, in transaction mode (scripts/pgbouncer.sh on a free port), in front
// of the suite's PostgreSQL server: the way managed PostgreSQL is usually reached. Any database of
// that server is reached through it by the same name.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../../support/free-port.ts';

const run = promisify(execFile);

/** Why a test needing PgBouncer cannot run here, or false when it can. */
export const pgbouncerMissing: string | false =
  spawnSync('sh', ['-c', 'command -v pgbouncer'], { stdio: 'ignore' }).status !== 0 &&
  'needs pgbouncer (Debian: apt-get install pgbouncer; CI installs it)';

export interface PrivatePgBouncer {
  /** `url` (of a database on the server) with the bouncer's host and port instead. */
  through(url: string): string;
  /** Runs a command of PgBouncer's admin console (SHOW POOLS, DISABLE db...). */
  admin(command: string): Promise<Record<string, unknown>[]>;
  stop(): Promise<void>;
}

export async function startPgBouncer(serverUrl: string): Promise<PrivatePgBouncer> {
  const dir = await mkdtemp(join(tmpdir(), 'pgbouncer-'));
  const port = String(await freePort());
  const started = await run('bash', ['scripts/pgbouncer.sh', 'start', dir, port, serverUrl]);
  const bouncer = new URL(started.stdout.trim());
  const through = (url: string) => {
    const reached = new URL(url);
    reached.host = bouncer.host;
    return reached.href;
  };
  return {
    through,
    async admin(command) {
      const console = new URL(bouncer);
      console.pathname = '/pgbouncer';
      const client = new pg.Client({ connectionString: console.href });
      await client.connect();
      try {
        return (await client.query(command)).rows;
      } finally {
        await client.end();
      }
    },
    async stop() {
      await run('bash', ['scripts/pgbouncer.sh', 'stop', dir]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
