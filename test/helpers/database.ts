// Which database a test file runs on: TEST_DATABASE=postgres gives each file a fresh database on
// the server at TEST_POSTGRES_URL (dropped at the end); otherwise PGlite in memory.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const onPostgres = process.env.TEST_DATABASE === 'postgres';
export const databaseLabel = onPostgres ? 'PostgreSQL' : 'PGlite';

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
