// What the span of an outbound event's delivery attempt says: the event, the attempt, and what
// became of it. The names are OpenTelemetry's messaging conventions where one fits (the service
// sends a message the application processes), else the service's own `billing.*`.
import type { ClaimedEvent, Outcome } from '../ports/outbox.ts';
import type { TraceAttributes } from '../ports/tracing.ts';

export const sendNotes = (event: ClaimedEvent): TraceAttributes => ({
  'messaging.operation.type': 'send',
  'messaging.message.id': event.id,
  'billing.event.type': event.type,
  'billing.delivery.attempt': event.attempt,
});

const TOLD = { delivered: 'delivered', pending: 'retry', failed: 'failed' } as const;

/** `delivered`, `retry` (tried again later) or `failed` (given up). */
export const sentNotes = (outcome: Outcome): TraceAttributes => ({
  'billing.delivery.outcome': TOLD[outcome.state],
});
