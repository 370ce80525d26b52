// A database for the simulator when nobody hands it one: PGlite (PostgreSQL compiled to
// WebAssembly) in memory, which forgets everything when the process ends, or a PostgreSQL server
// given by a postgres:// URL, where the sim_* tables keep the state across restarts.
import type pg from 'pg';
import type { SimulatorDatabase, SqlClient, SqlParam } from './sql-client.ts';

export interface OwnDatabase extends SimulatorDatabase {
  close(): Promise<void>;
}

/** `memory://` (or nothing) for PGlite in memory, else a postgres:// URL. */
export async function openDatabase(url = 'memory://'): Promise<OwnDatabase> {
  if (url === 'memory://') return openPglite();
  if (/^postgres(ql)?:\/\//.test(url)) return openPostgres(url);
  throw new Error(`database: expected memory:// or a postgres:// URL, got ${url}`);
}

async function openPglite(): Promise<OwnDatabase> {
  // Loaded only when used: PGlite is some 35 MB that a PostgreSQL user never needs.
  const { PGlite } = await import('@electric-sql/pglite');
  const pglite = await PGlite.create();
  const client = (target: Pick<typeof pglite, 'query' | 'exec'>): SqlClient => ({
    query: async <Row>(sql: string, params: SqlParam[] = []) =>
      (await target.query<Row>(sql, params)).rows,
    exec: async (sql) => void (await target.exec(sql)),
  });
  return {
    ...client(pglite),
    transaction: (work) => pglite.transaction((tx) => work(client(tx))),
    close: () => pglite.close(),
  };
}

async function openPostgres(url: string): Promise<OwnDatabase> {
  const { Pool } = (await import('pg')).default;
  const pool = new Pool({ connectionString: url, max: 4 });
  pool.on('error', () => {}); // an idle connection lost; the pool replaces it
  const client = (target: pg.Pool | pg.PoolClient): SqlClient => ({
    query: async <Row>(sql: string, params: SqlParam[] = []) =>
      (await target.query(sql, params)).rows as Row[],
    exec: async (sql) => void (await target.query(sql)),
  });
  return {
    ...client(pool),
    async transaction(work) {
      const connection = await pool.connect();
      try {
        await connection.query('BEGIN');
        const result = await work(client(connection));
        await connection.query('COMMIT');
        return result;
      } catch (error) {
        await connection.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        connection.release();
      }
    },
    close: () => pool.end(),
  };
}
