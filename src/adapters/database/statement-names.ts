// Named (prepared) statements: PostgreSQL parses and plans a named statement once per connection
// instead of on every call, which on the service's short statements is much of its work. A name is
// state of the server connection, and a pooler in transaction mode (PgBouncer before 1.21, among
// others) hands that connection to other clients between transactions. A name is therefore the
// hash of its SQL: on any connection it can only mean that statement, so a pooler can make it
// missing (26000) or taken already (42P05), never another statement. Where that happens the first
// time, statements go unnamed from then on (the caller runs the statement, or its transaction,
// again) and it is logged once. DATABASE_PREPARED_STATEMENTS sets either mode from the start.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { SqlParam } from './sql-client.ts';

/** `auto`: named until the connection proves that names do not stay on it. */
export type StatementMode = 'auto' | 'named' | 'unnamed';

/** Bounded, so that SQL built per call could never grow the server's per-connection cache without end. */
const MAX_NAMED_STATEMENTS = 500;
const names = new Map<string, string>();

function nameOf(sql: string): string | undefined {
  let name = names.get(sql);
  if (name === undefined && names.size < MAX_NAMED_STATEMENTS) {
    name = `q${createHash('sha256').update(sql).digest('base64url').slice(0, 32)}`;
    names.set(sql, name);
  }
  return name;
}

/** What a server connection says when a name this client prepared is not kept there. */
const NAME_NOT_KEPT = new Set(['26000', '42P05']);

export class StatementNames {
  private named: boolean;

  constructor(
    private readonly mode: StatementMode,
    private readonly onUnnamed: (message: string) => void,
  ) {
    this.named = mode !== 'unnamed';
  }

  query(sql: string, params: SqlParam[]): pg.QueryConfig<SqlParam[]> {
    return this.named
      ? { name: nameOf(sql), text: sql, values: params }
      : { text: sql, values: params };
  }

  /**
   * True when `error` says names are not kept on this database's connections and statements are
   * unnamed from now on (in `auto` mode): what failed may then be run again.
   */
  goneUnnamed(error: unknown): boolean {
    const code = (error as { code?: unknown }).code;
    if (this.mode !== 'auto' || typeof code !== 'string' || !NAME_NOT_KEPT.has(code)) return false;
    if (this.named) {
      this.named = false;
      this.onUnnamed(
        `named statements are not kept between transactions here (${(error as Error).message}: ` +
          'a pooler in transaction mode?); statements are unnamed from now on. ' +
          'DATABASE_PREPARED_STATEMENTS=false starts so, =true keeps them named',
      );
    }
    return true;
  }
}
