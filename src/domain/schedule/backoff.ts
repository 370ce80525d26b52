// One backoff for what the service tries again in the background (a seat push, an outbound event):
// the wait before each retry follows a list of waits, the last repeated (doubling from a first wait
// up to a cap, or a schedule of the caller's own), and each wait is stretched at random so that
// instances and subjects do not come back in step. A provider that throttles says how long to wait
// (its Retry-After): that wait is obeyed instead.
import { DomainError } from '../errors.ts';

/** The random share a wait is stretched by: between `least` and `most` (e.g. -0.2 and 0.2). */
export interface Jitter {
  least: number;
  most: number;
}

export interface Backoff {
  /** The waits before retries 1, 2, ...; the last one repeats. */
  waitsMs: readonly number[];
  jitter: Jitter;
}

/** Waits doubling from `firstMs` up to `capMs`. */
export function doubling(firstMs: number, capMs: number): number[] {
  const waits = [Math.min(firstMs, capMs)];
  while (waits.at(-1)! < capMs) waits.push(Math.min(capMs, waits.at(-1)! * 2));
  return waits;
}

export const jittered = (ms: number, { least, most }: Jitter, random = Math.random): number =>
  ms * (1 + least + (most - least) * random());

/** The wait before retry number `retry` (from 1). */
export function backoffMs(backoff: Backoff, retry: number, random = Math.random): number {
  const { waitsMs, jitter } = backoff;
  return jittered(waitsMs[Math.min(retry, waitsMs.length) - 1]!, jitter, random);
}

/** When the provider throttled without saying how long to wait. */
const THROTTLED_WAIT_SECONDS = 1;

/** How long a throttling provider asked to wait (its Retry-After, else 1 s); null for any other failure. */
export function throttledForMs(error: unknown): number | null {
  if (!(error instanceof DomainError && error.code === 'payments_throttled')) return null;
  return Number(error.details.retryAfterSeconds ?? THROTTLED_WAIT_SECONDS) * 1000;
}

/** The wait before retry `retry` after `error`: what the provider asked when it throttled, else the backoff's. */
export const waitAfter = (backoff: Backoff, retry: number, error: unknown): number =>
  throttledForMs(error) ?? backoffMs(backoff, retry);
