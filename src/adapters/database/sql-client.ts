// The database port the repositories are written against: run a statement, or run several in
// one transaction. PGlite and PostgreSQL both implement it, so the SQL and migrations are shared.
export type SqlParam = string | number | boolean | Date | null | string[];

export interface SqlClient {
  query<Row = Record<string, unknown>>(sql: string, params?: SqlParam[]): Promise<Row[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface PoolStats {
  size: number;
  idle: number;
  waiting: number;
}

export interface Database extends SqlClient {
  readonly kind: 'pglite' | 'postgres';
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T>;
  /** Connections in use and waiting; PGlite has one connection and reports it. */
  poolStats(): PoolStats;
  close(): Promise<void>;
}

/** Raised when the database cannot be reached at all, as opposed to a statement failing. */
export class DatabaseUnavailableError extends Error {
  constructor(cause: unknown) {
    super('database unavailable', { cause });
    this.name = 'DatabaseUnavailableError';
  }
}
