// Retries a provider call for as long as the provider throttles it: on each
// DomainError('payments_throttled') it waits as long as the provider asks (its Retry-After, else a
// second) and calls again. For the operator's long runs (a replay of undelivered events, a
// reconciliation), which must not give up half-way through.
import { DomainError } from './errors.ts';

export interface ThrottledRetryOptions {
  /** Told before each wait the provider asked for. */
  onThrottled?: (seconds: number) => void;
  sleep?: (ms: number) => Promise<void>;
}

/** When throttled without being told how long to wait. */
const DEFAULT_WAIT_SECONDS = 1;

export const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function retryWhileThrottled<T>(
  call: () => Promise<T>,
  options: ThrottledRetryOptions = {},
): Promise<T> {
  const { onThrottled = () => {}, sleep = realSleep } = options;
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'payments_throttled')) throw error;
      const seconds = Number(error.details.retryAfterSeconds ?? DEFAULT_WAIT_SECONDS);
      onThrottled(seconds);
      await sleep(seconds * 1000);
    }
  }
}
