// The changes no write announces: a scheduled end or a grace period that passes changes the tier
// at read time, with no provider event (or before the late one). A scheduled job looks every
// little while for subjects told a paid tier whose end has passed, and for subjects billed while
// no events were recorded, and announces what they are now, each in a transaction of its own.
import type { Outbox } from '../ports/outbox.ts';
import type { Store } from '../ports/store.ts';
import type { TierPolicy } from '../billing/tier.ts';
import { announceChanges } from './tier-watch.ts';

/** Looked at twice a minute, so a change is recorded well within the minute. */
export const TIER_CLOCK_EVERY_MS = 30_000;
const BATCH = 500;

export interface TierClockDeps {
  store: Store;
  outbox: Outbox;
  policy: TierPolicy;
  clock?: () => Date;
}

export async function announcePassedEnds(
  deps: TierClockDeps,
  signal: AbortSignal,
): Promise<{ looked: number }> {
  const now = deps.clock?.() ?? new Date();
  const subjects = await deps.outbox.dueForLook(now, deps.policy.graceDays, BATCH);
  for (const ref of subjects) {
    signal.throwIfAborted();
    const look = { policy: deps.policy, cause: null, firstStored: false, untoldBefore: null, now };
    await deps.store.transaction((tx) => announceChanges(tx, ref, look));
  }
  return { looked: subjects.length };
}
