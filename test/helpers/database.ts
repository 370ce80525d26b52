// Which database a test file runs on: TEST_DATABASE=postgres gives each file a fresh database on
// the server at TEST_POSTGRES_URL (dropped at the end); otherwise PGlite in memory.
import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { migrate } from '../../src/adapters/database/migrate.ts';
import { openDatabase } from '../../src/adapters/database/open.ts';
import type { Database } from '../../src/adapters/database/sql-client.ts';
import { projectPath } from '../../src/adapters/project-root.ts';

export const onPostgres = process.env.TEST_DATABASE === 'postgres';
export const databaseLabel = onPostgres ? 'PostgreSQL' : 'PGlite';

/**
 * For a file whose subject is not the database (tokens, the identity provider, /metrics): npm test
 * runs it in one half only (scripts/test.mjs says which, in TEST_ONCE_SKIP). Run alone
 * (`node --test`), it always runs.
 */
export const onceInTheSuite = { skip: process.env.TEST_ONCE_SKIP || false };

export interface TestDatabase {
  /** The DATABASE_URL to give the service. */
  url: string;
  drop(): Promise<void>;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: process.env.TEST_POSTGRES_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function createTestDatabase(): Promise<TestDatabase> {
  if (!onPostgres) return { url: 'memory://', drop: async () => {} };
  const name = `test_${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(process.env.TEST_POSTGRES_URL!);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    drop: () =>
      admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(
        () => {},
      ),
  };
}

export interface OpenTestDatabase {
  db: Database;
  /** Closes the connections and drops the database. */
  close(): Promise<void>;
}

/** A database of the test's own, opened as the service opens one: no migration applied. */
export async function openTestDatabase(poolSize = 2): Promise<OpenTestDatabase> {
  const database = await createTestDatabase();
  const db = await openDatabase(
    onPostgres ? { kind: 'postgres', url: database.url, poolSize } : { kind: 'pglite' },
  );
  return {
    db,
    async close() {
      await db.close();
      await database.drop();
    },
  };
}

/**
 * A database as an earlier release left it: the project's migrations before `first` applied,
 * ready to be filled and then migrated on. `next` lists, in order, those `migrate(db)` then applies.
 */
export async function migratedBefore(
  first: string,
): Promise<OpenTestDatabase & { next: string[] }> {
  const opened = await openTestDatabase();
  const files = (await readdir(projectPath('migrations'))).sort();
  const earlier = await mkdtemp(join(tmpdir(), `migrations-before-${first}-`));
  try {
    for (const file of files.filter((f) => f < first))
      await copyFile(projectPath('migrations', file), join(earlier, file));
    await migrate(opened.db, earlier);
  } finally {
    await rm(earlier, { recursive: true, force: true });
  }
  return { ...opened, next: files.filter((f) => f >= first) };
}
