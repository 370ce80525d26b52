// Deletes the rows of a table that match a condition, a small batch per statement: each batch
// finds at most BATCH rows through an index and deletes them by their physical address (ctid),
// so no statement holds row locks long or scans the table, and other writers go on in between.
import type { SqlClient, SqlParam } from './sql-client.ts';

export const BATCH = 1_000;
/** A pause between batches, so a large backlog does not crowd out the service's own statements. */
const PAUSE_MS = 20;

/**
 * Deletes from `table` every row matching `where` (SQL over the table's columns with $n
 * parameters), batch by batch, until a batch finds fewer than BATCH rows or `signal` is aborted.
 * The condition is checked again as each row is deleted, so a row changed meanwhile is kept if it
 * no longer matches.
 */
export async function deleteInBatches(
  db: SqlClient,
  table: string,
  where: string,
  params: SqlParam[],
  signal: AbortSignal,
): Promise<number> {
  const sql = `WITH gone AS (
      DELETE FROM ${table} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${table} WHERE ${where} LIMIT ${BATCH}))
        AND ${where}
      RETURNING 1)
    SELECT count(*)::int AS n FROM gone`;
  let total = 0;
  for (;;) {
    signal.throwIfAborted();
    const [row] = await db.query<{ n: number }>(sql, params);
    total += row?.n ?? 0;
    if ((row?.n ?? 0) < BATCH) return total;
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
  }
}
