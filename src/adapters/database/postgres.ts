// PostgreSQL through a `pg` pool: what production and several service instances share.
import pg from 'pg';
import {
  DatabaseUnavailableError,
  type Database,
  type SqlClient,
  type SqlParam,
  type Statement,
} from './sql-client.ts';

// Connection-level failures (refused, reset, terminated, admin shutdown) as opposed to SQL errors.
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08003',
  '08006',
]);

// A pooler's own errors (PgBouncer's query_wait_timeout, "no more connections allowed", "server
// login has been failing"...) are protocol violations, and fatal: it closes the connection after
// them. PostgreSQL's own 08P01 for a malformed statement is an ERROR and stays one.
const POOLER_ERROR = '08P01';

function isUnavailable(error: unknown): boolean {
  const { code, severity } = error as { code?: string; severity?: string };
  if (code === POOLER_ERROR) return severity === 'FATAL';
  if (code !== undefined) return UNAVAILABLE_CODES.has(code);
  return (
    error instanceof Error &&
    /Connection terminated|timeout exceeded when trying to connect|not queryable/i.test(
      error.message,
    )
  );
}

/** The error as a DatabaseUnavailableError when it says the connection is lost. */
function unavailable(error: unknown): DatabaseUnavailableError | undefined {
  if (error instanceof DatabaseUnavailableError) return error;
  return isUnavailable(error) ? new DatabaseUnavailableError(error) : undefined;
}

async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw unavailable(error) ?? error;
  }
}

// Named (prepared) statements: PostgreSQL parses and, after a few runs, plans each statement once
// per connection instead of on every call. A name is state of the server connection, and a pooler
// in transaction mode (PgBouncer before 1.21, among others) hands that connection to other clients
// between transactions, where the name is taken already or missing. So statements are named only
// when asked (DATABASE_PREPARED_STATEMENTS, or the embedded server, reached directly); otherwise
// each is the unnamed statement, which lives until the next one. Names are bounded, so SQL built
// per call could never grow the server's per-connection cache without end.
const MAX_NAMED_STATEMENTS = 500;
const statementNames = new Map<string, string>();

function statementName(sql: string): string | undefined {
  let name = statementNames.get(sql);
  if (name === undefined && statementNames.size < MAX_NAMED_STATEMENTS) {
    name = `s${statementNames.size}`;
    statementNames.set(sql, name);
  }
  return name;
}

type ToQuery = (sql: string, params: SqlParam[]) => pg.QueryConfig<SqlParam[]>;

const unnamedQuery: ToQuery = (sql, params) => ({ text: sql, values: params });
const namedQuery: ToQuery = (sql, params) => ({
  name: statementName(sql),
  text: sql,
  values: params,
});

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

/**
 * Statements sent in one go leave in one socket write: pg writes each statement on its own, and
 * on loopback or a network every write is a send of its own. (pg corks its socket the same way
 * around the messages of one statement; the socket is pg's, there is no public handle to it.)
 */
function sentTogether<T>(connection: pg.PoolClient, send: () => T): T {
  const socket = (connection as unknown as pg.Client).connection.stream;
  socket.cork();
  try {
    return send();
  } finally {
    socket.uncork();
  }
}

const BEGIN = 'BEGIN ISOLATION LEVEL READ COMMITTED';

/**
 * COMMIT, sent with the last statement: a failed statement aborts the transaction, and the server
 * answers that COMMIT with a rollback; the statement's error is what is thrown.
 */
async function commit(
  connection: pg.PoolClient,
  last: Statement | undefined,
  toQuery: ToQuery,
): Promise<void> {
  const [lastDone, committing] = sentTogether(connection, () => [
    last && pipelined(connection.query(toQuery(last.sql, last.params))),
    connection.query('COMMIT'),
  ]);
  const committed = await committing;
  await lastDone;
  if (committed.command !== 'COMMIT')
    throw new Error(`transaction ended with ${committed.command} instead of COMMIT`);
}

/** Runs `work` in one transaction on a connection of its own; `last` goes with COMMIT. */
async function inTransaction<T>(
  pool: pg.Pool,
  work: (tx: SqlClient) => Promise<T>,
  last: Statement | undefined,
  toQuery: ToQuery,
): Promise<T> {
  const connection = await guarded(() => pool.connect());
  let lost: DatabaseUnavailableError | undefined;
  try {
    // BEGIN travels with the first statements of `work` (those it sends before it awaits): one
    // round trip less per transaction. BEGIN cannot fail on a working connection, and on a
    // broken one so does what follows. READ COMMITTED whatever the server's default: the
    // event lock's second look (migrations/003) needs a fresh snapshot.
    const [begun, working] = sentTogether(connection, () => [
      pipelined(connection.query(BEGIN)),
      work(sqlClientOn(connection, toQuery)),
    ]);
    const result = await working;
    await begun;
    await commit(connection, last, toQuery);
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

/** Statements are named only with `preparedStatements`: a connection that reaches PostgreSQL itself. */
export function openPostgres(url: string, poolSize = 10, preparedStatements = false): Database {
  const toQuery = preparedStatements ? namedQuery : unnamedQuery;
  // Pipeline mode: a query may be sent before the answer to the previous one is in. Used at the
  // two ends of a transaction (inTransaction), whose ROLLBACK is not waited for either; everything
  // else awaits each statement.
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: 5_000,
    pipeline: true,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  // ...and neither must a checked-out client whose backend is terminated mid-transaction: the
  // failing query rejects (and maps to 503), the error event must not become an uncaught one.
  pool.on('connect', (connection) => void connection.on('error', () => {}));
  return {
    kind: 'postgres',
    ...sqlClientOn(pool, toQuery),
    transaction: (work, last) => inTransaction(pool, work, last, toQuery),
    poolStats: () => ({ size: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => pool.end(),
  };
}
