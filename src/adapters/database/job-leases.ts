// JobLeases on the database (migrations/006): each operation is one statement on the job's row,
// so it holds no lock beyond that statement and works the same through a transaction-pooling
// PgBouncer, on PostgreSQL and PGlite alike. The database's clock decides every time, so the
// instances' clocks need not agree.
import type { JobLeases } from '../../domain/ports/job-leases.ts';
import type { SqlClient } from './sql-client.ts';

// A second concurrent claim waits for the first's row, then re-checks the condition against it.
const CLAIM = `
  INSERT INTO job_leases (job, holder, held_until, started_at)
  VALUES ($1, $2, now() + $3::float8 * interval '1 millisecond', now())
  ON CONFLICT (job) DO UPDATE SET holder = EXCLUDED.holder, held_until = EXCLUDED.held_until,
    started_at = EXCLUDED.started_at
  WHERE (job_leases.holder IS NULL OR job_leases.held_until < now())
    AND (job_leases.completed_at IS NULL OR job_leases.completed_at <= now() - $4::float8 * interval '1 millisecond')
  RETURNING 1`;

export function createJobLeases(db: SqlClient): JobLeases {
  return {
    async claim(job, holder, leaseMs, dueAfterMs) {
      return (await db.query(CLAIM, [job, holder, leaseMs, dueAfterMs])).length > 0;
    },
    async renew(job, holder, leaseMs) {
      const renewed = await db.query(
        `UPDATE job_leases SET held_until = now() + $3::float8 * interval '1 millisecond'
         WHERE job = $1 AND holder = $2 RETURNING 1`,
        [job, holder, leaseMs],
      );
      return renewed.length > 0;
    },
    async release(job, holder, result) {
      await db.query(
        `UPDATE job_leases SET holder = NULL, held_until = NULL,
           completed_at = CASE WHEN $3::text IS NULL THEN completed_at ELSE now() END,
           result = COALESCE($3::jsonb, result)
         WHERE job = $1 AND holder = $2`,
        [job, holder, result === undefined ? null : JSON.stringify(result)],
      );
    },
    async holder(job) {
      const [row] = await db.query<{ holder: string; started_at: Date }>(
        'SELECT holder, started_at FROM job_leases WHERE job = $1 AND holder IS NOT NULL AND held_until >= now()',
        [job],
      );
      return row ? { holder: row.holder, since: row.started_at } : null;
    },
    async lastRun(job) {
      const [row] = await db.query<{ completed_at: Date | null; result: unknown }>(
        'SELECT completed_at, result FROM job_leases WHERE job = $1',
        [job],
      );
      if (!row?.completed_at) return null;
      const result = typeof row.result === 'string' ? JSON.parse(row.result) : row.result;
      return { completedAt: row.completed_at, result: (result ?? {}) as Record<string, number> };
    },
  };
}
