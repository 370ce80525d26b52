// The per-user limits' counts in the shared database (migrations/008): one statement per hit, an
// upsert that starts a window or counts in the running one and answers the count and the time
// left. The database's clock decides, so instances whose clocks differ still share one window.
// The table stays small whatever keys come: the same statement deletes a few windows of other keys
// that have expired (migrations/009), more than a hit can add, and a key longer than a subject has
// reason to be is kept by its hash, so the primary key's index (rows of at most ~2.7 kB) takes it.
import { createHash } from 'node:crypto';
import type { Expiring } from '../../domain/ports/expiring.ts';
import type { HitCounter } from '../../http/per-user-limit.ts';
import { deleteInBatches } from './batch-delete.ts';
import type { SqlClient } from './sql-client.ts';

const MAX_KEY_BYTES = 300;
const EXPIRED_PER_HIT = 2;

const HIT = `
  WITH expired AS (
    DELETE FROM rate_limit_counts WHERE key IN (
      SELECT key FROM rate_limit_counts WHERE window_end <= now() AND key <> $1
      ORDER BY window_end LIMIT ${EXPIRED_PER_HIT} FOR UPDATE SKIP LOCKED)
  )
  INSERT INTO rate_limit_counts AS c (key, hits, window_end)
  VALUES ($1, 1, now() + $2::float8 * interval '1 millisecond')
  ON CONFLICT (key) DO UPDATE SET
    hits = CASE WHEN c.window_end <= now() THEN 1 ELSE c.hits + 1 END,
    window_end = CASE WHEN c.window_end <= now() THEN EXCLUDED.window_end ELSE c.window_end END
  RETURNING hits, ceil(extract(epoch FROM window_end - now()) * 1000)::int AS ms_left`;

/** The key as stored: itself, or, when longer than MAX_KEY_BYTES, its SHA-256. */
const storedKey = (key: string): string =>
  Buffer.byteLength(key) <= MAX_KEY_BYTES
    ? key
    : `sha256:${createHash('sha256').update(key).digest('hex')}`;

export function createRateLimitCounts(db: SqlClient): HitCounter & Expiring {
  return {
    async hit(key, windowMs) {
      const [row] = await db.query<{ hits: number; ms_left: number }>(HIT, [
        storedKey(key),
        windowMs,
      ]);
      return { hits: row!.hits, msLeft: Math.max(0, row!.ms_left) };
    },
    forgetExpired: (signal) =>
      deleteInBatches(db, 'rate_limit_counts', 'window_end < now()', [], signal),
  };
}
