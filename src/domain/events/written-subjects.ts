// What the tier-watch (tier-watch.ts) needs to know of a transaction's writes: the subjects whose
// subscriptions, or their pending changes, it wrote. The repositories it hands the transaction's
// work note them as they write.
import type { SubjectRef } from '../model.ts';
import type {
  PendingChangesRepository,
  Repositories,
  SubscriptionsRepository,
} from '../ports/store.ts';

/** The subjects a transaction wrote subscriptions of. */
export class Written {
  readonly subjects = new Map<string, { ref: SubjectRef; firstStored: boolean }>();
  /** Written by subscription id alone: their owner is looked up before the commit. */
  readonly byId = new Set<string>();

  add(ref: SubjectRef, firstStored: boolean): void {
    const key = `${ref.type}:${ref.id}`;
    const known = this.subjects.get(key);
    this.subjects.set(key, { ref, firstStored: firstStored || (known?.firstStored ?? false) });
  }
}

function watchedSubscriptions(
  subscriptions: SubscriptionsRepository,
  written: Written,
): SubscriptionsRepository {
  return {
    ...subscriptions,
    async insert(state) {
      const stored = await subscriptions.insert(state);
      if (stored) written.add(state.owner, true);
      return stored;
    },
    async update(state) {
      await subscriptions.update(state);
      written.add(state.owner, false);
    },
    async updateIfAsOfBelow(state) {
      const write = await subscriptions.updateIfAsOfBelow(state);
      if (write.written) written.byId.add(state.id);
      return write;
    },
  };
}

function watchedPendingChanges(
  pendingChanges: PendingChangesRepository,
  written: Written,
): PendingChangesRepository {
  return {
    ...pendingChanges,
    async record(input) {
      await pendingChanges.record(input);
      written.byId.add(input.subscriptionId);
    },
  };
}

/** The transaction's repositories, noting in `written` what they write. */
export const watchedRepositories = (tx: Repositories, written: Written): Repositories => ({
  ...tx,
  subscriptions: watchedSubscriptions(tx.subscriptions, written),
  pendingChanges: watchedPendingChanges(tx.pendingChanges, written),
});
