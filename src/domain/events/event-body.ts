// The events the application is told, in the Standard Webhooks shape: `{"type", "timestamp",
// "data"}`, minified, the exact text signed and sent on every attempt; the id is the `webhook-id`.
import type { EventDraft } from '../ports/outbox.ts';

/** Who an event is about: a user or an organisation, with the identity provider's id. */
export interface EventSubject {
  type: 'user' | 'organization';
  id: string;
  idp_id: string;
}

export type EventData =
  | { type: 'tier.changed'; data: { from: string; to: string; reason: string } }
  | { type: 'payment.failed'; data: { grace_until: string } }
  | { type: 'trial.will_end'; data: { trial_end: string } }
  | { type: 'seats.changed'; data: { from: number; to: number } }
  | { type: 'change.scheduled'; data: { pending_change: ScheduledChange } }
  | { type: 'credits.purchased'; data: { pack: string; credits: number; balance: number } }
  | { type: 'credits.depleted'; data: { balance: number } };

/** A change a subscription's schedule makes at the period's end, as GET /billing/subscription says it. */
export interface ScheduledChange {
  plan: string | null;
  interval: 'month' | 'year' | null;
  effective_at: string;
}

/** An id without dots (the signed content joins id, time and body with them). */
export const newEventId = (): string => `msg_${crypto.randomUUID().replaceAll('-', '')}`;

export function draftEvent(subject: EventSubject, event: EventData, now: Date): EventDraft {
  const body = JSON.stringify({
    type: event.type,
    timestamp: now.toISOString(),
    data: { subject, ...event.data },
  });
  return { id: newEventId(), type: event.type, body };
}
