// The benchmark's PostgreSQL: a throwaway cluster started with scripts/postgres.sh (as .ci/run
// does), or, with DATABASE_URL set, a fresh database created on that server and dropped at the
// end (the benchmark never writes into an existing database). Migrated with the service's own
// migrations, then seeded with the users and subscriptions the scenarios need.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { migrate } from '../../src/adapters/database/migrate.ts';
import { openPostgres } from '../../src/adapters/database/postgres.ts';
import { freePort } from '../../support/free-port.ts';
import { onExit } from './processes.ts';

export interface BenchDatabase {
  url: string;
  /** Where it came from, for the report. */
  origin: string;
  pool: pg.Pool;
  close(): Promise<void>;
}

async function throwawayCluster(): Promise<{ url: string; stop(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-pg-'));
  const port = await freePort();
  const stop = () => {
    spawnSync('bash', ['scripts/postgres.sh', 'stop', dir], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  };
  onExit(stop);
  const started = spawnSync('bash', ['scripts/postgres.sh', 'start', dir, String(port)], {
    encoding: 'utf8',
  });
  if (started.status !== 0) {
    throw new Error(
      `could not start PostgreSQL (set DATABASE_URL to use a running one): ${started.stderr.trim() || started.stdout.trim()}`,
    );
  }
  const url = started.stdout.trim();
  // As the floor is measured: no waiting on the disk at all (scripts/postgres.sh turns fsync off).
  for (const setting of ['synchronous_commit', 'full_page_writes'])
    await adminQuery(url, `ALTER SYSTEM SET ${setting} = off`);
  await adminQuery(url, 'SELECT pg_reload_conf()');
  return { url, stop };
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export interface OwnDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A new database `name` on the server of `serverUrl`, dropped by drop(). `asynchronousCommit`
 * turns synchronous_commit off for it, as the benchmark runs its servers (see throwawayCluster).
 */
export async function createDatabase(
  serverUrl: string,
  name: string,
  { asynchronousCommit = false } = {},
): Promise<OwnDatabase> {
  await adminQuery(serverUrl, `CREATE DATABASE ${name}`);
  if (asynchronousCommit)
    await adminQuery(serverUrl, `ALTER DATABASE ${name} SET synchronous_commit = off`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    drop: () => adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

export async function openBenchDatabase(): Promise<BenchDatabase> {
  let url: string;
  let origin: string;
  let release: () => Promise<void>;
  const given = process.env.DATABASE_URL;
  if (given !== undefined && /^postgres(ql)?:\/\//.test(given)) {
    const name = `bench_${randomBytes(5).toString('hex')}`;
    const own = await createDatabase(given, name, { asynchronousCommit: true });
    url = own.url;
    origin = `DATABASE_URL server, database ${name} (dropped at the end)`;
    release = own.drop;
  } else {
    const cluster = await throwawayCluster();
    url = cluster.url;
    origin =
      'throwaway cluster (scripts/postgres.sh; fsync, synchronous_commit, full_page_writes off)';
    release = async () => cluster.stop();
  }
  const migrating = openPostgres(url, { poolSize: 2 });
  try {
    await migrate(migrating);
  } finally {
    await migrating.close();
  }
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  return {
    url,
    origin,
    pool,
    async close() {
      await pool.end();
      await release();
    },
  };
}

export interface Seed {
  /** Users with an active subscription each: S1's and S2's population. */
  users: number;
  /** Users without a subscription, for the checkout scenario. */
  checkoutUsers: number;
  /** as_of of every seeded subscription; S2's events are all newer. */
  baseCreated: number;
}

export const userSub = (i: number) => `u${i}`;
export const userEmail = (sub: string) => `${sub}@bench.example`;
export const subscriptionId = (i: number) => `sub_bench_${i}`;
export const customerId = (i: number) => `cus_bench_${i}`;
export const checkoutSub = (i: number) => `c${i}`;

/** Returns each seeded user's id, by index. */
export async function seed(pool: pg.Pool, s: Seed): Promise<string[]> {
  await pool.query(
    `INSERT INTO users (idp_id, email, payments_customer_id)
     SELECT 'u' || i, 'u' || i || '@bench.example', 'cus_bench_' || i FROM generate_series(0, $1 - 1) AS i`,
    [s.users],
  );
  const { rows } = await pool.query<{ id: string; i: number }>(
    `SELECT id, substr(idp_id, 2)::int AS i FROM users WHERE idp_id ~ '^u[0-9]+$'`,
  );
  const ids: string[] = [];
  for (const row of rows) ids[row.i] = row.id;
  await pool.query(
    `INSERT INTO subscriptions (id, user_id, customer_id, status, price_id, cancel_at_period_end, current_period_end, created_at, as_of)
     SELECT 'sub_bench_' || substr(u.idp_id, 2), u.id, u.payments_customer_id, 'active', 'price_bench_pro', false,
            now() + interval '30 days', now() - interval '1 day', $1
     FROM users u WHERE u.idp_id ~ '^u[0-9]+$'`,
    [s.baseCreated],
  );
  await pool.query(
    `INSERT INTO users (idp_id, email) SELECT 'c' || i, 'c' || i || '@bench.example' FROM generate_series(0, $1 - 1) AS i`,
    [s.checkoutUsers],
  );
  await pool.query('VACUUM ANALYZE');
  return ids;
}
