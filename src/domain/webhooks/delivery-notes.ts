// What a webhook delivery's trace says of it, on the request's server span: the event (its id and
// type) and what became of it. The names are OpenTelemetry's messaging conventions where one fits
// (the service processes a message the provider sent), else the service's own `billing.*`.
import type { TraceAttributes } from '../ports/tracing.ts';

export const deliveryNotes = (
  event: { id: string; type: string },
  outcome: 'processed' | 'duplicate' | 'ignored' | 'failed',
): TraceAttributes => ({
  'messaging.system': 'stripe',
  'messaging.operation.type': 'process',
  'messaging.message.id': event.id,
  'billing.event.type': event.type,
  'billing.webhook.outcome': outcome,
});
