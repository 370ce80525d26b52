// The outbox as the outbound-events tests read it, and one look of the tier clock: shared by the
// tests of what is told and of what was never told.
import { createOutbox } from '../../src/adapters/database/outbox.ts';
import { tierPolicy } from '../../src/composition.ts';
import { announcePassedEnds } from '../../src/domain/events/tier-clock.ts';
import type { TestApp } from './app.ts';

/** The tier.changed events written so far, oldest first, each as its from, to and reason. */
export const tierChanges = async (t: TestApp) =>
  (
    await t.composition.db.query<{ body: string }>(
      "SELECT body FROM outbound_events WHERE type = 'tier.changed' ORDER BY seq",
    )
  ).map((e) => {
    const { from, to, reason } = JSON.parse(e.body).data;
    return { from, to, reason };
  });

/** The tier clock's look, on a clock `aheadMs` ahead: what no provider event announces. */
export const clockLook = (t: TestApp, aheadMs: number) =>
  announcePassedEnds(
    {
      store: t.composition.store,
      outbox: createOutbox(t.composition.db, 'free'),
      policy: tierPolicy(t.config),
      clock: () => new Date(Date.now() + aheadMs),
    },
    new AbortController().signal,
  );
