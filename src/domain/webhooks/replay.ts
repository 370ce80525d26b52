// Replays the provider's undelivered events through the same exactly-once path as a delivery,
// for when our endpoint was down longer than the provider keeps retrying. When the provider
// throttles us, the replay waits as long as it asks (its Retry-After) and goes on where it was.
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import { retryWhileThrottled, type ThrottledRetryOptions } from '../retry-while-throttled.ts';
import type { WebhookOutcome, WebhookService } from './webhook-service.ts';

export type ReplayProgress = (
  done: number,
  total: number,
  eventId: string,
  outcome: WebhookOutcome,
) => void;

export interface ReplayOptions extends ThrottledRetryOptions {
  progress?: ReplayProgress;
}

export async function replayUndeliveredEvents(
  payments: PaymentsProvider,
  webhooks: WebhookService,
  options: ReplayOptions = {},
) {
  const { progress = () => {} } = options;
  const events = await retryWhileThrottled(() => payments.undeliveredEvents(), options);
  const counts: Record<WebhookOutcome, number> = { processed: 0, duplicate: 0, ignored: 0 };
  for (const [index, event] of events.entries()) {
    const outcome = await retryWhileThrottled(() => webhooks.process(event), options);
    counts[outcome] += 1;
    progress(index + 1, events.length, event.id, outcome);
  }
  return { total: events.length, ...counts };
}
