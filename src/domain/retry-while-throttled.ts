// Retries a provider call for as long as the provider throttles it: on each throttled answer it
// waits as long as the provider asks (schedule/backoff.ts: its Retry-After, else a second) and calls
// again. For the operator's long runs (a replay of undelivered events, a reconciliation), which
// must not give up half-way through.
import { throttledForMs } from './schedule/backoff.ts';

export interface ThrottledRetryOptions {
  /** Told before each wait the provider asked for. */
  onThrottled?: (seconds: number) => void;
  sleep?: (ms: number) => Promise<void>;
}

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
      const waitMs = throttledForMs(error);
      if (waitMs === null) throw error;
      onThrottled(waitMs / 1000);
      await sleep(waitMs);
    }
  }
}
