// Which of pg's errors mean the database is out of reach (the service answers 503 and clients try
// again) rather than a statement's own failure.
import { DatabaseUnavailableError } from './sql-client.ts';

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
export function unavailable(error: unknown): DatabaseUnavailableError | undefined {
  if (error instanceof DatabaseUnavailableError) return error;
  return isUnavailable(error) ? new DatabaseUnavailableError(error) : undefined;
}

export async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw unavailable(error) ?? error;
  }
}
