// PostgreSQL compiled to WebAssembly, in memory (DATABASE_URL=memory://): a database per test file
// or demo that starts in a second and leaves nothing behind. One connection, in this process only.
import type { PGlite } from '@electric-sql/pglite';
import { freshPglite } from './pglite-cluster.ts';
import type { Database, SqlClient, SqlParam } from './sql-client.ts';

export async function openPglite(): Promise<Database> {
  const pg = await freshPglite();
  const sqlClientOn = (client: Pick<PGlite, 'query' | 'exec'>): SqlClient => ({
    async query<Row>(sql: string, params: SqlParam[] = []) {
      return (await client.query<Row>(sql, params)).rows;
    },
    async exec(sql: string) {
      await client.exec(sql);
    },
  });
  return {
    kind: 'pglite',
    ...sqlClientOn(pg),
    transaction: (work) => pg.transaction((tx) => work(sqlClientOn(tx))),
    poolStats: () => ({ size: 1, idle: 1, waiting: 0 }),
    close: () => pg.close(),
  };
}
