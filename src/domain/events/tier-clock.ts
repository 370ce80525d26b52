// The changes no write announces: a scheduled end or a grace period that passes changes the tier
// at read time, with no provider event (or before the late one). A scheduled job looks every
// little while for subjects told a paid tier whose end has passed, then for every subject never told
// its tier (billed while no events were recorded, or left unknown by an upgrade), and announces
// what they are now, each in a transaction of its own.
import type { SubjectRef } from '../model/callers.ts';
import type { Outbox } from '../ports/outbox.ts';
import type { Store } from '../ports/store.ts';
import { announceChanges, type EventPolicy } from './subject-changes.ts';

/** Looked at twice a minute, so a change is recorded well within the minute. */
export const TIER_CLOCK_EVERY_MS = 30_000;
const BATCH = 500;

export interface TierClockDeps {
  store: Store;
  outbox: Outbox;
  policy: EventPolicy;
  clock?: () => Date;
}

export async function announcePassedEnds(
  deps: TierClockDeps,
  signal: AbortSignal,
): Promise<{ looked: number }> {
  const now = deps.clock?.() ?? new Date();
  const look = { policy: deps.policy, cause: null, written: null, now };
  const lookAt = async (subjects: SubjectRef[]) => {
    for (const ref of subjects) {
      signal.throwIfAborted();
      await deps.store.transaction((tx) => announceChanges(tx, ref, look));
    }
    return subjects.length;
  };
  let looked = await lookAt(await deps.outbox.passedEnds(now, deps.policy.graceDays, BATCH));
  // Then every subject never told, batch after batch: after an upgrade, these can be many.
  for (let after: SubjectRef | null = null; ;) {
    const untold = await deps.outbox.untold(after, BATCH);
    looked += await lookAt(untold);
    if (untold.length < BATCH) return { looked };
    after = untold.at(-1)!;
  }
}
