// Embedded PostgreSQL (WebAssembly) for a laptop: one process, stored under DATA_DIR or in memory.
import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import type { Database, SqlClient, SqlParam } from './sql-client.ts';

export async function openPglite(dataDir: string | null): Promise<Database> {
  if (dataDir !== null) await mkdir(dataDir, { recursive: true });
  const pg = await PGlite.create(dataDir ?? undefined);
  const run = (client: Pick<PGlite, 'query' | 'exec'>): SqlClient => ({
    async query<Row>(sql: string, params: SqlParam[] = []) {
      return (await client.query<Row>(sql, params)).rows;
    },
    async exec(sql: string) {
      await client.exec(sql);
    },
  });
  return {
    kind: 'pglite',
    ...run(pg),
    transaction: (work, last) =>
      pg.transaction(async (tx) => {
        const result = await work(run(tx));
        if (last) await tx.query(last.sql, last.params);
        return result;
      }),
    poolStats: () => ({ size: 1, idle: 1, waiting: 0 }),
    close: () => pg.close(),
  };
}
