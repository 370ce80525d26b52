// Patience with a throttling provider: when it answers 429, wait as long as it asks (its
// Retry-After, else a second) and ask again, as often as it takes. For the operator's long runs
// (a replay of undelivered events, a reconciliation), which must not give up half-way through.
import { DomainError } from './errors.ts';

export interface Patience {
  /** Told before each wait the provider asked for. */
  onThrottled?: (seconds: number) => void;
  sleep?: (ms: number) => Promise<void>;
}

/** When throttled without being told how long to wait. */
const DEFAULT_WAIT_SECONDS = 1;

export const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function patiently<T>(work: () => Promise<T>, patience: Patience = {}): Promise<T> {
  const { onThrottled = () => {}, sleep = realSleep } = patience;
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
