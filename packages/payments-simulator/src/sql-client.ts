// What the simulator needs of a database: run a statement, run a script, and run several
// statements in one transaction. Written against PostgreSQL's SQL (PGlite or a server); a host
// application may pass its own client when it has this shape, or let database.ts open one.
export type SqlParam = string | number | boolean | Date | null | string[];

export interface SqlClient {
  query<Row = Record<string, unknown>>(sql: string, params?: SqlParam[]): Promise<Row[]>;
  /** Runs a script of several statements without parameters. */
  exec(sql: string): Promise<void>;
}

export interface SimulatorDatabase extends SqlClient {
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T>;
}
