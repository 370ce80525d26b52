// PostgreSQL through a `pg` pool: what production and several service instances share.
import pg from 'pg';
import type { Database, DatabaseUnavailableError, SqlClient, SqlParam } from './sql-client.ts';
import { guarded, unavailable } from './unavailable.ts';
import { coalescingSocket } from './coalescing-socket.ts';
import { StatementNames, type StatementMode } from './statement-names.ts';

type ToQuery = (sql: string, params: SqlParam[]) => pg.QueryConfig<SqlParam[]>;

function sqlClientOn(target: pg.Pool | pg.PoolClient, toQuery: ToQuery): SqlClient {
  return {
    async query<Row>(sql: string, params: SqlParam[] = []) {
      return guarded(async () => (await target.query(toQuery(sql, params))).rows as Row[]);
    },
    async exec(sql: string) {
      await guarded(() => target.query(sql));
    },
  };
}

/** Sent without waiting for the answer to the one before; the caller awaits it (and every error). */
function pipelined<T>(sent: Promise<T>): Promise<T> {
  sent.catch(() => {});
  return sent;
}

const BEGIN = 'BEGIN ISOLATION LEVEL READ COMMITTED';

/** Runs `work` in one transaction on a connection of its own. */
async function inTransaction<T>(
  pool: pg.Pool,
  work: (tx: SqlClient) => Promise<T>,
  toQuery: ToQuery,
): Promise<T> {
  const connection = await guarded(() => pool.connect());
  let lost: DatabaseUnavailableError | undefined;
  try {
    // BEGIN travels with the first statement of `work`: one round trip less per transaction.
    // BEGIN cannot fail on a working connection, and on a broken one so does what follows. READ
    // COMMITTED whatever the server's default: a delivery that waited on another's record, and a
    // conditional write that waited on another's row, go on from what that one committed.
    const begun = pipelined(connection.query(BEGIN));
    const result = await work(sqlClientOn(connection, toQuery));
    await begun;
    const committed = await connection.query('COMMIT');
    // A statement that failed unawaited aborted the transaction: the server answers a rollback.
    if (committed.command !== 'COMMIT')
      throw new Error(`transaction ended with ${committed.command} instead of COMMIT`);
    return result;
  } catch (error) {
    // A lost connection is released with its error, so the pool discards it: pg may not
    // know yet that it is dead, and would hand it to the next caller.
    lost = unavailable(error);
    if (lost) throw lost;
    // Not awaited: the connection runs what it is sent in order, so whoever is handed it next
    // queues behind the ROLLBACK, and this caller does not wait a round trip for it.
    connection.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    connection.release(lost);
  }
}

/** Once more, when it failed only because statements had to go unnamed (statement-names.ts). */
async function againIfUnnamed<T>(names: StatementNames, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!names.goneUnnamed(error)) throw error;
    return run();
  }
}

export interface PostgresOptions {
  poolSize?: number;
  statements?: StatementMode;
  /** Told, once, when statements go unnamed by themselves. */
  warn?: (message: string) => void;
}

/** Statements are named unless `statements` says otherwise, or a pooler proves them unsafe. */
export function openPostgres(
  url: string,
  { poolSize = 10, statements = 'auto', warn = () => {} }: PostgresOptions = {},
): Database {
  const names = new StatementNames(statements, warn);
  const toQuery: ToQuery = (sql, params) => names.query(sql, params);
  // Pipeline mode: a query may be sent before the answer to the previous one is in. Used at the
  // two ends of a transaction (inTransaction), whose ROLLBACK is not waited for either; everything
  // else awaits each statement.
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: 5_000,
    pipeline: true,
    stream: coalescingSocket,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  // ...and neither must a checked-out client whose backend is terminated mid-transaction: the
  // failing query rejects (and maps to 503), the error event must not become an uncaught one.
  pool.on('connect', (connection) => void connection.on('error', () => {}));
  const direct = sqlClientOn(pool, toQuery);
  return {
    kind: 'postgres',
    query: <Row>(sql: string, params?: SqlParam[]) =>
      againIfUnnamed(names, () => direct.query<Row>(sql, params)),
    exec: direct.exec,
    transaction: (work) => againIfUnnamed(names, () => inTransaction(pool, work, toQuery)),
    poolStats: () => ({ size: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => pool.end(),
  };
}
