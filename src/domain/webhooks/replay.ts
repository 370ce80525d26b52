// Replays the provider's undelivered events through the same exactly-once path as a delivery,
// for when our endpoint was down longer than the provider keeps retrying.
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { WebhookOutcome, WebhookService } from './webhook-service.ts';

export type ReplayProgress = (done: number, total: number, eventId: string, outcome: WebhookOutcome) => void;

export async function replayUndeliveredEvents(payments: PaymentsProvider, webhooks: WebhookService, progress: ReplayProgress = () => {}) {
  const events = await payments.undeliveredEvents();
  const counts: Record<WebhookOutcome, number> = { processed: 0, duplicate: 0, ignored: 0 };
  for (const [index, event] of events.entries()) {
    const outcome = await webhooks.process(event);
    counts[outcome] += 1;
    progress(index + 1, events.length, event.id, outcome);
  }
  return { total: events.length, ...counts };
}
