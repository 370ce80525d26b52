// The outbox outside transactions: the delivery workers' claims and records, the operator's list
// and resend, the counts, the tier clock's look, retention (migrations/012). One worker per event
// across instances rests on the claim: one statement that takes a lease of the rows it finds,
// skipping the rows another claim holds locked (FOR UPDATE SKIP LOCKED).
import type { SubjectRef } from '../../domain/model/callers.ts';
import type { ClaimedEvent, EventSummary, Outbox } from '../../domain/ports/outbox.ts';
import type { SqlClient } from './sql-client.ts';
import { deleteInBatches } from './batch-delete.ts';
import { DECIDING_SUBSCRIPTION } from './repositories/rows.ts';

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

const LIST = (failedOnly: boolean) => `SELECT e.id, e.type, e.subject_type, e.subject_id, e.state,
    e.attempts, e.created_at, e.next_attempt_at, d.status, d.answer
  FROM outbound_events e
  LEFT JOIN LATERAL (SELECT status, answer FROM outbound_deliveries
    WHERE event_id = e.id ORDER BY attempt DESC LIMIT 1) d ON true
  ${failedOnly ? "WHERE e.state = 'failed'" : ''}
  ORDER BY e.seq DESC LIMIT $1`;

interface SummaryRow {
  id: string;
  type: string;
  subject_type: 'user' | 'organization';
  subject_id: string;
  state: EventSummary['state'];
  attempts: number;
  created_at: Date;
  next_attempt_at: Date;
  status: number | null;
  answer: string | null;
}

const toSummary = (row: SummaryRow): EventSummary => ({
  id: row.id,
  type: row.type,
  subject: { type: row.subject_type, id: row.subject_id },
  state: row.state,
  attempts: row.attempts,
  createdAt: row.created_at,
  nextAttemptAt: row.state === 'pending' ? row.next_attempt_at : null,
  last: row.answer === null ? null : { status: row.status, answer: row.answer },
});

const OWNERS = `SELECT CASE WHEN s.user_id IS NOT NULL THEN 'user' ELSE 'organization' END AS subject_type,
    COALESCE(s.user_id, s.organization_id) AS subject_id, s.*
  FROM subscriptions s`;

// Subjects told a paid tier whose deciding subscription is live and its scheduled end or grace
// period has passed. Only the deciding one: an older live one's end changes nothing.
const PASSED_END_OF = (type: SubjectRef['type'], column: 'user_id' | 'organization_id') => `
  SELECT '${type}' AS subject_type, c.${column} AS subject_id FROM subscriptions c
  JOIN announced_subjects a ON a.subject_type = '${type}' AND a.subject_id = c.${column}
  ${DECIDING_SUBSCRIPTION(column, `c.${column}`)}
  WHERE s.id = c.id AND a.tier <> $3 AND c.status IN ('active', 'trialing', 'past_due')
    AND (c.cancel_at <= $1 OR (c.cancel_at_period_end AND c.current_period_end <= $1)
      OR (c.status = 'past_due' AND c.payment_failed_at + $2::int * interval '1 day' <= $1))`;
const PASSED_ENDS = `${PASSED_END_OF('user', 'user_id')}
  UNION ALL ${PASSED_END_OF('organization', 'organization_id')}
  LIMIT $4`;

// Subjects never told their tier (left unknown by an upgrade, or billed while no destination was
// configured), in the order of their keys, from after the key given.
const UNTOLD = `WITH owners AS (${OWNERS}), untold AS (
    SELECT subject_type, subject_id FROM announced_subjects WHERE tier IS NULL
    UNION
    SELECT o.subject_type, o.subject_id FROM owners o
    WHERE NOT EXISTS (SELECT 1 FROM announced_subjects a
      WHERE a.subject_type = o.subject_type AND a.subject_id = o.subject_id))
  SELECT subject_type, subject_id FROM untold
  WHERE $1::text IS NULL OR (subject_type, subject_id) > ($1::text, $2::uuid)
  ORDER BY subject_type, subject_id
  LIMIT $3`;

type SubjectRow = { subject_type: 'user' | 'organization'; subject_id: string };
const toRef = (row: SubjectRow): SubjectRef => ({ type: row.subject_type, id: row.subject_id });

// A pending event is tried now, keeping its place; a settled one is retried afresh, out of line.
const RESEND = `
  UPDATE outbound_events SET state = 'pending', next_attempt_at = $2, settled_at = NULL,
    retry_from = CASE WHEN state = 'pending' THEN retry_from ELSE $2 END
  WHERE id = $1 RETURNING 1`;

const COUNTS = `
  SELECT count(*) FILTER (WHERE state = 'pending')::int AS pending,
    count(*) FILTER (WHERE state = 'delivered')::int AS delivered,
    count(*) FILTER (WHERE state = 'failed')::int AS failed,
    min(created_at) FILTER (WHERE state = 'pending') AS oldest
  FROM outbound_events`;

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

async function outboxCounts(db: SqlClient, now: Date) {
  const [row] = await db.query<{
    pending: number;
    delivered: number;
    failed: number;
    oldest: Date | null;
  }>(COUNTS);
  const oldest = row?.oldest ?? null;
  return {
    pending: row?.pending ?? 0,
    delivered: row?.delivered ?? 0,
    failed: row?.failed ?? 0,
    oldestPendingSeconds:
      oldest === null ? 0 : Math.max(0, (now.getTime() - oldest.getTime()) / 1000),
  };
}

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
    async list({ failed, limit }) {
      return (await db.query<SummaryRow>(LIST(failed), [limit])).map(toSummary);
    },
    async resend(eventId, now) {
      return (await db.query(RESEND, [eventId, now])).length > 0;
    },
    counts: (now) => outboxCounts(db, now),
    async passedEnds(now, graceDays, limit) {
      const rows = await db.query<SubjectRow>(PASSED_ENDS, [now, graceDays, freeTier, limit]);
      return rows.map(toRef);
    },
    async untold(after, limit) {
      const rows = await db.query<SubjectRow>(UNTOLD, [
        after?.type ?? null,
        after?.id ?? null,
        limit,
      ]);
      return rows.map(toRef);
    },
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
