// Events, written in the same transaction as the change they describe (an outbox), then delivered
// by delivery.ts. `previous_attributes` holds the old values of the top-level fields that changed,
// as Stripe's *.updated events do.
import type { SqlClient } from './sql-client.ts';
import { newId } from './ids.ts';

export const API_VERSION = '2026-10-28.endive';

/** The API request that caused an event; both null for the simulator's own doings (a payment on the page). */
export interface Trigger {
  requestId: string | null;
  idempotencyKey: string | null;
}

export const AUTOMATIC: Trigger = { requestId: null, idempotencyKey: null };

export interface SimEvent {
  id: string;
  object: 'event';
  api_version: string;
  created: number;
  data: { object: object; previous_attributes?: Record<string, unknown> };
  livemode: false;
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
  type: string;
}

export interface EventRef {
  id: string;
  type: string;
}

/**
 * Old values of the top-level fields that differ, or undefined when nothing changed. A field the
 * object did not have before (`status_details` on a pause) has no old value and is left out; one
 * it no longer has (the same, on a resume) keeps its old value.
 */
export function previousAttributes(
  before: object,
  after: object,
): Record<string, unknown> | undefined {
  const old = before as Record<string, unknown>;
  const now = after as Record<string, unknown>;
  const changed: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(now), ...Object.keys(old)])) {
    if (old[key] !== undefined && JSON.stringify(now[key]) !== JSON.stringify(old[key]))
      changed[key] = old[key];
  }
  return Object.keys(changed).length > 0 ? changed : undefined;
}

/** What an event says: its type, its object, what caused it, and the old values of what changed. */
export interface NewEvent {
  type: string;
  object: object;
  trigger: Trigger;
  previous?: Record<string, unknown> | undefined;
}

/** An event as Stripe shapes it; `created` is given so a benchmark can build a backlog of past events. */
export function buildEvent(
  { type, object, trigger, previous }: NewEvent,
  created: number,
): SimEvent {
  return {
    id: newId('evt_'),
    object: 'event',
    api_version: API_VERSION,
    created,
    data: previous === undefined ? { object } : { object, previous_attributes: previous },
    livemode: false,
    pending_webhooks: 1,
    request: { id: trigger.requestId, idempotency_key: trigger.idempotencyKey },
    type,
  };
}

/**
 * Records an event for delivery. `leaseMs` keeps the retry timer off it while the code that
 * emitted it delivers it right after the commit; if the process dies first, the timer takes over.
 */
export async function insertEvent(
  tx: SqlClient,
  newEvent: NewEvent,
  leaseMs: number,
): Promise<EventRef> {
  // An event is dated when it is sent, on real time as Stripe dates events under a test clock: its
  // receiver checks that against the signature's time.
  const event = buildEvent(newEvent, Math.floor(Date.now() / 1000));
  await tx.query(
    'INSERT INTO sim_events (id, type, created, data, next_attempt_at) VALUES ($1, $2, $3, $4, $5)',
    [event.id, event.type, event.created, JSON.stringify(event), Date.now() + leaseMs],
  );
  return { id: event.id, type: event.type };
}

export interface EventRow {
  data: string;
  delivered: boolean;
}

/** The event as GET /v1/events shows it: pending_webhooks is 0 once delivery succeeded. */
export function presentEvent(row: EventRow): SimEvent {
  const event = JSON.parse(row.data) as SimEvent;
  return { ...event, pending_webhooks: row.delivered ? 0 : 1 };
}
