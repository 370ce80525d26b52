// The outbox outside transactions (migrations/012): the delivery workers' claims and records and
// retention here; the operator's list, resend and counts in outbox-operations.ts; the tier clock's
// look in outbox-tier-clock.ts. One worker per event across instances rests on the claim: one
// statement that takes a lease of the rows it finds, skipping the rows another claim holds locked
// (FOR UPDATE SKIP LOCKED).
import type { ClaimedEvent, Outbox } from '../../domain/ports/outbox.ts';
import type { SqlClient } from './sql-client.ts';
import { deleteInBatches } from './batch-delete.ts';
import { operatorsOutbox } from './outbox-operations.ts';
import { tierClockOutbox } from './outbox-tier-clock.ts';

// The oldest pending event of each subject that is due and held by nobody. A subject's next event
// waits while an earlier one is pending, so events of one subject arrive in order; other subjects
// go on meanwhile. A resent event (retried from later than its creation) is a copy of one already
// delivered or given up: it neither waits nor holds up the others. `retry` is the attempt's number
// since its retries started, counted by the attempts recorded since then when resent.
const CLAIM = `WITH due AS (
    SELECT e.seq FROM outbound_events e
    WHERE e.state = 'pending' AND e.next_attempt_at <= $1
      AND (e.lease_until IS NULL OR e.lease_until <= $1)
      AND (e.retry_from > e.created_at OR NOT EXISTS (SELECT 1 FROM outbound_events p
        WHERE p.state = 'pending' AND p.retry_from = p.created_at
          AND p.subject_type = e.subject_type AND p.subject_id = e.subject_id AND p.seq < e.seq))
    ORDER BY e.next_attempt_at, e.seq
    LIMIT $4
    FOR UPDATE SKIP LOCKED)
  UPDATE outbound_events e SET lease_holder = $2,
    lease_until = $1::timestamptz + $3::int * interval '1 millisecond', attempts = e.attempts + 1
  FROM due WHERE e.seq = due.seq
  RETURNING e.id, e.type, e.body, e.attempts, e.retry_from, e.trace_parent,
    CASE WHEN e.retry_from = e.created_at THEN e.attempts
      ELSE 1 + (SELECT count(*)::int FROM outbound_deliveries d
        WHERE d.event_id = e.id AND d.attempted_at >= e.retry_from) END AS retry`;

const SETTLE = `WITH logged AS (
    INSERT INTO outbound_deliveries (event_id, attempt, attempted_at, status, duration_ms, answer)
    VALUES ($1, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING)
  UPDATE outbound_events SET state = $8, next_attempt_at = COALESCE($9, next_attempt_at),
    settled_at = CASE WHEN $8 = 'pending' THEN NULL ELSE $4::timestamptz END,
    lease_holder = NULL, lease_until = NULL
  WHERE id = $1 AND lease_holder = $2`;

type ClaimRow = {
  id: string;
  type: string;
  body: string;
  attempts: number;
  retry_from: Date;
  retry: number;
  trace_parent: string | null;
};
const toClaimed = (row: ClaimRow): ClaimedEvent => ({
  id: row.id,
  type: row.type,
  body: row.body,
  attempt: row.attempts,
  retry: row.retry,
  retryFrom: row.retry_from,
  traceParent: row.trace_parent,
});

export function createOutbox(db: SqlClient, freeTier: string): Outbox {
  return {
    async claim(holder, now, leaseMs, limit) {
      return (await db.query<ClaimRow>(CLAIM, [now, holder, leaseMs, limit])).map(toClaimed);
    },
    async settle(eventId, holder, attempt, record, outcome) {
      await db.query(SETTLE, [
        eventId,
        holder,
        attempt,
        record.attemptedAt,
        record.status,
        record.durationMs,
        record.answer,
        outcome.state,
        outcome.state === 'pending' ? outcome.at : null,
      ]);
    },
    ...operatorsOutbox(db),
    ...tierClockOutbox(db, freeTier),
    forgetSettled: (before, signal) =>
      deleteInBatches(
        db,
        'outbound_events',
        "state <> 'pending' AND settled_at < $1",
        [before],
        signal,
      ),
  };
}
