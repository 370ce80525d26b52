// When a failed delivery is tried again: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h after the
// attempts before, then every 10 h, for 3 days from the first attempt; then the event is given up.
// A resend starts the schedule afresh. Each wait is up to a tenth longer at random
// (schedule/backoff.ts), so a receiver back from an outage is not met by every event at once.
import type { Outcome } from '../ports/outbox.ts';
import { backoffMs, type Backoff } from '../schedule/backoff.ts';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

const DELIVERY_BACKOFF: Backoff = {
  waitsMs: [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR],
  jitter: { least: 0, most: 0.1 },
};
const GIVE_UP_AFTER_MS = 72 * HOUR;

/** What follows the failure of attempt number `retry` (from 1) of retries started at `retryFrom`. */
export function afterFailure(
  retry: number,
  retryFrom: Date,
  now: Date,
  random: () => number = Math.random,
): Outcome {
  const at = new Date(now.getTime() + backoffMs(DELIVERY_BACKOFF, retry, random));
  return at.getTime() - retryFrom.getTime() > GIVE_UP_AFTER_MS
    ? { state: 'failed' }
    : { state: 'pending', at };
}
