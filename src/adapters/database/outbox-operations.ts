// The outbox as the operator sees it (`events list`, `events resend`) and as /metrics counts it.
import type { EventSummary, Outbox } from '../../domain/ports/outbox.ts';
import type { SqlClient } from './sql-client.ts';

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

export function operatorsOutbox(db: SqlClient): Pick<Outbox, 'list' | 'resend' | 'counts'> {
  return {
    async list({ failed, limit }) {
      return (await db.query<SummaryRow>(LIST(failed), [limit])).map(toSummary);
    },
    async resend(eventId, now) {
      return (await db.query(RESEND, [eventId, now])).length > 0;
    },
    counts: (now) => outboxCounts(db, now),
  };
}
