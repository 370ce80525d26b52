// The seat engine's state per organisation (migrations/010: organization_seats).
import type { SeatsRepository, SeatWork } from '../../../domain/ports/seats.ts';
import type { SqlClient } from '../sql-client.ts';

// A report as of an earlier time than the stored one changes nothing; a stored one marks the seats
// as changed (as mark_seats_changed does) in the same statement.
const REPORT = `
  INSERT INTO organization_seats (organization_id, reported, reported_as_of, changes, changed_at,
    pending_since)
  VALUES ($1, $2, $3, 1, now(), now())
  ON CONFLICT (organization_id) DO UPDATE SET reported = EXCLUDED.reported,
    reported_as_of = EXCLUDED.reported_as_of, changes = organization_seats.changes + 1,
    changed_at = now(), pending_since = COALESCE(organization_seats.pending_since, now())
    WHERE organization_seats.reported_as_of IS NULL
      OR organization_seats.reported_as_of <= EXCLUDED.reported_as_of
  RETURNING 1`;

// Taken once quiet, or once its first change has waited long enough: the first push of a burst
// after maxWaitMs, a later one (changes kept coming since) after streamWaitMs.
// Under READ COMMITTED a row another claimer took meanwhile is re-checked against its new lease
// (and skipped); a row another claimer holds locked is skipped outright.
const CLAIM = `
  UPDATE organization_seats s SET holder = $1,
    held_until = now() + $2::float8 * interval '1 millisecond'
  FROM (
    SELECT organization_id FROM organization_seats
    WHERE pending_since IS NOT NULL
      AND (held_until IS NULL OR held_until < now())
      AND (retry_at IS NULL OR retry_at <= now())
      AND (changed_at <= now() - $4::float8 * interval '1 millisecond'
        OR pending_since <= now() - (CASE WHEN burst_pushes = 0 THEN $5 ELSE $6 END)::float8
          * interval '1 millisecond')
    ORDER BY pending_since
    LIMIT $3
    FOR UPDATE SKIP LOCKED
  ) due
  WHERE s.organization_id = due.organization_id
    AND (s.held_until IS NULL OR s.held_until < now())
  RETURNING s.organization_id, s.changes, s.failures`;

const SET_DESIRED = `
  UPDATE organization_seats SET desired = $3,
    revision = CASE WHEN desired IS DISTINCT FROM $3 OR $4 THEN revision + 1 ELSE revision END
  WHERE organization_id = $1 AND holder = $2
  RETURNING revision`;

// Changes that came while it was held start the next wait from now, as a push of the same burst.
const RELEASE_DONE = `
  UPDATE organization_seats SET holder = NULL, held_until = NULL, failures = 0, retry_at = NULL,
    pending_since = CASE WHEN changes = $3 THEN NULL ELSE now() END,
    burst_pushes = CASE WHEN changes = $3 THEN 0 ELSE burst_pushes + $4 END
  WHERE organization_id = $1 AND holder = $2`;

const RELEASE_FAILED = `
  UPDATE organization_seats SET holder = NULL, held_until = NULL, failures = failures + 1,
    retry_at = now() + $3::float8 * interval '1 millisecond'
  WHERE organization_id = $1 AND holder = $2`;

const LAPSED = `
  WITH lapsed AS (
    SELECT s.organization_id FROM organization_seats s
    WHERE s.desired IS NOT NULL AND s.desired <> GREATEST($2::int, (
      SELECT count(*) FROM memberships m
      WHERE m.organization_id = s.organization_id
        AND m.last_seen_at > now() - $1::int * interval '1 day')))
  SELECT mark_seats_changed(organization_id) FROM lapsed`;

const OUT_OF_SYNC = `
  SELECT count(*)::int AS n FROM organization_seats s
  JOIN subscriptions sub ON sub.organization_id = s.organization_id
    AND sub.status IN ('active', 'trialing', 'past_due')
  WHERE s.pending_since IS NOT NULL OR sub.quantity IS DISTINCT FROM s.desired`;

const TARGET =
  'SELECT desired, revision, pushed_revision FROM organization_seats WHERE organization_id = $1';
type TargetRow = {
  desired: number | null;
  revision: string | number;
  pushed_revision: string | number | null;
};

type ClaimRow = { organization_id: string; changes: string | number; failures: number };
const toWork = (row: ClaimRow): SeatWork => ({
  organizationId: row.organization_id,
  changes: Number(row.changes),
  failures: row.failures,
});

export function seatsRepository(db: SqlClient): SeatsRepository {
  return {
    async reported(organizationId) {
      const [row] = await db.query<{ reported: number | null; reported_as_of: Date | null }>(
        'SELECT reported, reported_as_of FROM organization_seats WHERE organization_id = $1',
        [organizationId],
      );
      return row?.reported == null ? null : { count: row.reported, asOf: row.reported_as_of! };
    },
    async report(organizationId, { count, asOf }) {
      return (await db.query(REPORT, [organizationId, count, asOf])).length > 0;
    },
    async claim({ holder, leaseMs, limit, quietMs, maxWaitMs, streamWaitMs }) {
      const params = [holder, leaseMs, limit, quietMs, maxWaitMs, streamWaitMs];
      return (await db.query<ClaimRow>(CLAIM, params)).map(toWork);
    },
    async target(organizationId) {
      const [row] = await db.query<TargetRow>(TARGET, [organizationId]);
      return {
        desired: row?.desired ?? null,
        revision: Number(row?.revision ?? 0),
        pushedRevision: row?.pushed_revision == null ? null : Number(row.pushed_revision),
      };
    },
    async setDesired(organizationId, holder, desired, again) {
      const [row] = await db.query<{ revision: string | number }>(SET_DESIRED, [
        organizationId,
        holder,
        desired,
        again,
      ]);
      return row === undefined ? null : Number(row.revision);
    },
    async pushed(organizationId, holder, revision) {
      await db.query(
        'UPDATE organization_seats SET pushed_revision = $3 WHERE organization_id = $1 AND holder = $2',
        [organizationId, holder, revision],
      );
    },
    async release(organizationId, holder, outcome) {
      if (!outcome.done)
        await db.query(RELEASE_FAILED, [organizationId, holder, outcome.retryAfterMs]);
      else {
        const pushed = outcome.pushed ? 1 : 0;
        await db.query(RELEASE_DONE, [organizationId, holder, outcome.changes, pushed]);
      }
    },
    async mark(organizationId) {
      await db.query('SELECT mark_seats_changed($1)', [organizationId]);
    },
    async markLapsed(activeDays, minimum) {
      return (await db.query(LAPSED, [activeDays, minimum])).length;
    },
    async outOfSync() {
      const [row] = await db.query<{ n: number }>(OUT_OF_SYNC);
      return row?.n ?? 0;
    },
  };
}
