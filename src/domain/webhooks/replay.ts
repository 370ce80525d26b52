// Replays the provider's undelivered events through the same exactly-once path as a delivery,
// for when our endpoint was down longer than the provider keeps retrying. When the provider
// throttles us, the replay waits as long as it asks (its Retry-After) and goes on where it was.
import { DomainError } from '../errors.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { WebhookOutcome, WebhookService } from './webhook-service.ts';

export type ReplayProgress = (
  done: number,
  total: number,
  eventId: string,
  outcome: WebhookOutcome,
) => void;

export interface ReplayOptions {
  progress?: ReplayProgress;
  /** Told before each wait the provider asked for. */
  onThrottled?: (seconds: number) => void;
  sleep?: (ms: number) => Promise<void>;
}

/** When throttled without being told how long to wait. */
const DEFAULT_WAIT_SECONDS = 1;

export async function replayUndeliveredEvents(
  payments: PaymentsProvider,
  webhooks: WebhookService,
  options: ReplayOptions = {},
) {
  const {
    progress = () => {},
    onThrottled = () => {},
    sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  } = options;
  async function patiently<T>(work: () => Promise<T>): Promise<T> {
    for (;;) {
      try {
        return await work();
      } catch (error) {
        if (!(error instanceof DomainError && error.code === 'payments_throttled')) throw error;
        const seconds = Number(error.details.retryAfterSeconds ?? DEFAULT_WAIT_SECONDS);
        onThrottled(seconds);
        await sleep(seconds * 1000);
      }
    }
  }
  const events = await patiently(() => payments.undeliveredEvents());
  const counts: Record<WebhookOutcome, number> = { processed: 0, duplicate: 0, ignored: 0 };
  for (const [index, event] of events.entries()) {
    const outcome = await patiently(() => webhooks.process(event));
    counts[outcome] += 1;
    progress(index + 1, events.length, event.id, outcome);
  }
  return { total: events.length, ...counts };
}
