// The tier clock's look at the outbox's subjects: whom a passed end or grace period moves to the
// free tier with no provider event to say so, and whom the application was never told a tier.
import type { SubjectRef } from '../../domain/model/callers.ts';
import type { Outbox } from '../../domain/ports/outbox.ts';
import type { SqlClient } from './sql-client.ts';
import { DECIDING_SUBSCRIPTION } from './repositories/rows.ts';

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

export function tierClockOutbox(
  db: SqlClient,
  freeTier: string,
): Pick<Outbox, 'passedEnds' | 'untold'> {
  return {
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
  };
}
