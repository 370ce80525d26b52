// The outbox inside a transaction: what each subject was last told (announced_subjects) and the
// events written beside the change they report (migrations/012, 014).
import type { SubjectRef } from '../../../domain/model.ts';
import type { Announced, EventDraft, OutboxRepository } from '../../../domain/ports/outbox.ts';
import type { SqlClient } from '../sql-client.ts';

interface AnnouncedRow {
  tier: string | null;
  seats: number | null;
  payment_failed_at: Date | null;
  pending_price_id: string | null;
  pending_effective_at: Date | null;
}

// Locks the subject's row, made on first sight, in one statement: the row of a concurrent first
// sight is waited for and read as it was committed.
const LOCK_ANNOUNCED = `INSERT INTO announced_subjects (subject_type, subject_id) VALUES ($1, $2)
  ON CONFLICT (subject_type, subject_id) DO UPDATE SET subject_type = EXCLUDED.subject_type
  RETURNING tier, seats, payment_failed_at, pending_price_id, pending_effective_at`;

const INSERT_EVENTS = `INSERT INTO outbound_events (id, subject_type, subject_id, type, body,
    created_at, retry_from, next_attempt_at)
  SELECT e.id, $1, $2, e.type, e.body, $6, $6, $6
  FROM unnest($3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS e(id, type, body, n)
  ORDER BY e.n`;

const ANNOUNCE = `WITH told AS (
    UPDATE announced_subjects SET tier = $7, seats = $8, payment_failed_at = $9,
      pending_price_id = $10, pending_effective_at = $11
    WHERE subject_type = $1 AND subject_id = $2)
  ${INSERT_EVENTS}`;

/** $1 to $6 of both statements that write events. */
const eventParams = (subject: SubjectRef, events: EventDraft[], now: Date) => [
  subject.type,
  subject.id,
  events.map((e) => e.id),
  events.map((e) => e.type),
  events.map((e) => e.body),
  now,
];

const ownerRef = (row: { user_id: string | null; organization_id: string | null }): SubjectRef =>
  row.user_id !== null
    ? { type: 'user', id: row.user_id }
    : { type: 'organization', id: row.organization_id! };

export function outboxRepository(db: SqlClient): OutboxRepository {
  return {
    async lockOrCreateAnnounced(subject) {
      const [made] = await db.query<AnnouncedRow>(LOCK_ANNOUNCED, [subject.type, subject.id]);
      const row = made!; // the statement returns the row it inserted or locked
      return {
        tier: row.tier,
        seats: row.seats,
        paymentFailedAt: row.payment_failed_at,
        pendingChange:
          row.pending_price_id === null
            ? null
            : { priceId: row.pending_price_id, effectiveAt: new Date(row.pending_effective_at!) },
      };
    },
    async wasTold(subject) {
      const rows = await db.query(
        `SELECT 1 FROM announced_subjects
         WHERE subject_type = $1 AND subject_id = $2 AND tier IS NOT NULL`,
        [subject.type, subject.id],
      );
      return rows.length > 0;
    },
    async subscriptionOwner(subscriptionId) {
      const [row] = await db.query<{ user_id: string | null; organization_id: string | null }>(
        'SELECT user_id, organization_id FROM subscriptions WHERE id = $1',
        [subscriptionId],
      );
      return row === undefined ? null : ownerRef(row);
    },
    async announce(subject, state: Announced, events, now) {
      await db.query(ANNOUNCE, [
        ...eventParams(subject, events, now),
        state.tier,
        state.seats,
        state.paymentFailedAt,
        state.pendingChange?.priceId ?? null,
        state.pendingChange?.effectiveAt ?? null,
      ]);
    },
    async append(subject, events, now) {
      // Under the subject's lock, as all its events, so they keep their order.
      await db.query(LOCK_ANNOUNCED, [subject.type, subject.id]);
      await db.query(INSERT_EVENTS, eventParams(subject, events, now));
    },
  };
}
