// The outbox inside a transaction: what each subject was last told (announced_subjects) and the
// events written beside the change they report (migrations/012, 014). With no destination
// configured the events are dropped here; what each subject is told is kept all the same, so that
// a destination configured later is told changes from then on, not the past. Each event keeps the
// trace of the change that wrote it (migrations/017), which its deliveries continue.
import type { SubjectRef } from '../../../domain/model/callers.ts';
import type { Announced, OutboxRepository } from '../../../domain/ports/outbox.ts';
import type { EventDraft } from '../../../domain/events/app-events.ts';
import { eventBody } from '../../events/event-body.ts';
import { activeTraceparent } from '../../tracing/otel.ts';
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

const insertEvents = (where = '') => `INSERT INTO outbound_events (id, subject_type, subject_id,
    type, body, created_at, retry_from, next_attempt_at, trace_parent)
  SELECT e.id, $1, $2, e.type, e.body, $6, $6, $6, $7
  FROM unnest($3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS e(id, type, body, n)
  ${where} ORDER BY e.n`;

// The subject's lock taken before the events are written, as all its events are, so they keep their order.
const APPEND = `WITH locked AS (${LOCK_ANNOUNCED})
  ${insertEvents('WHERE EXISTS (SELECT 1 FROM locked)')}`;

const ANNOUNCE = `WITH told AS (
    UPDATE announced_subjects SET tier = $8, seats = $9, payment_failed_at = $10,
      pending_price_id = $11, pending_effective_at = $12
    WHERE subject_type = $1 AND subject_id = $2)
  ${insertEvents()}`;

/** $1 to $7 of both statements that write events. */
const eventParams = (subject: SubjectRef, events: EventDraft[], now: Date) => [
  subject.type,
  subject.id,
  events.map((e) => e.id),
  events.map((e) => e.type),
  events.map(eventBody),
  now,
  activeTraceparent(),
];

/** Whether events are written: not while no destination is configured. */
export type OutboundEvents = 'recorded' | 'dropped';

export function outboxRepository(db: SqlClient, outbound: OutboundEvents): OutboxRepository {
  const kept = (events: EventDraft[]) => (outbound === 'recorded' ? events : []);
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
    async announce(subject, state: Announced, events, now) {
      await db.query(ANNOUNCE, [
        ...eventParams(subject, kept(events), now),
        state.tier,
        state.seats,
        state.paymentFailedAt,
        state.pendingChange?.priceId ?? null,
        state.pendingChange?.effectiveAt ?? null,
      ]);
    },
    async append(subject, events, now) {
      if (kept(events).length > 0) await db.query(APPEND, eventParams(subject, events, now));
    },
  };
}
