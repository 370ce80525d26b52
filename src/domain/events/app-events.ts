// The events the application is told, as values: who each is about, its type and its data, in the
// names the contract gives them (section 13). The outbox adapter writes each as the exact text
// signed and sent on every attempt (adapters/events/event-body.ts); the id is the `webhook-id`.

/** Who an event is about: a user or an organisation, with the identity provider's id. */
export interface EventSubject {
  type: 'user' | 'organization';
  id: string;
  idp_id: string;
}

export type EventData =
  | { type: 'tier.changed'; data: { from: string; to: string; reason: string } }
  | { type: 'payment.failed'; data: { grace_until: Date } }
  | { type: 'trial.will_end'; data: { trial_end: Date } }
  | { type: 'seats.changed'; data: { from: number; to: number } }
  | { type: 'change.scheduled'; data: { pending_change: ScheduledChange } }
  | { type: 'credits.purchased'; data: { pack: string; credits: number; balance: number } }
  | { type: 'credits.depleted'; data: { balance: number } };

/** A change a subscription's schedule makes at the period's end, as GET /billing/subscription says it. */
export interface ScheduledChange {
  plan: string | null;
  interval: 'month' | 'year' | null;
  effective_at: Date;
}

/**
 * An event to write: its id (the `webhook-id` of every attempt), its type, whom it is about, its
 * data and when it was made; the adapter writes it as the body every attempt sends.
 */
export interface EventDraft {
  id: string;
  type: EventData['type'];
  subject: EventSubject;
  data: EventData['data'];
  at: Date;
}

/** An id without dots (the signed content joins id, time and body with them). */
export const newEventId = (): string => `msg_${crypto.randomUUID().replaceAll('-', '')}`;

export function draftEvent(subject: EventSubject, event: EventData, now: Date): EventDraft {
  return { id: newEventId(), type: event.type, subject, data: event.data, at: now };
}
