// What the tier-watch (tier-watch.ts) needs to know of a transaction's writes: the subjects whose
// subscriptions, or their pending changes, it wrote, and what each subject never told its tier was
// before the first of them. The repositories it hands the transaction's work note them as they write.
import type { SubjectRef } from '../model.ts';
import type { Announced } from '../ports/outbox.ts';
import type {
  PendingChangesRepository,
  Repositories,
  SubscriptionsRepository,
} from '../ports/store.ts';

export const keyOf = (ref: SubjectRef) => `${ref.type}:${ref.id}`;

/** The subjects a transaction wrote subscriptions of. */
export class Written {
  readonly subjects = new Map<string, { ref: SubjectRef; firstStored: boolean }>();
  /**
   * What each subject never told its tier was before this transaction's first write of it (null:
   * it was told), so that the change the write makes is told.
   */
  readonly untoldBefore = new Map<string, Announced | null>();

  add(ref: SubjectRef, firstStored: boolean): void {
    const known = this.subjects.get(keyOf(ref));
    this.subjects.set(keyOf(ref), {
      ref,
      firstStored: firstStored || (known?.firstStored ?? false),
    });
  }
}

/** Notes, before a write, what the subject is, unless it was told or is noted already. */
type NoteBefore = (ref: SubjectRef) => Promise<void>;

function watchedSubscriptions(
  tx: Repositories,
  written: Written,
  noteBefore: NoteBefore,
): SubscriptionsRepository {
  const subscriptions = tx.subscriptions;
  return {
    ...subscriptions,
    async insert(state) {
      await noteBefore(state.owner);
      const stored = await subscriptions.insert(state);
      if (stored) written.add(state.owner, true);
      return stored;
    },
    async update(state) {
      await noteBefore(state.owner);
      await subscriptions.update(state);
      written.add(state.owner, false);
    },
    async updateIfAsOfBelow(state) {
      const owner = await tx.outbox.subscriptionOwner(state.id);
      if (owner !== null) await noteBefore(owner);
      const write = await subscriptions.updateIfAsOfBelow(state);
      if (write.written && owner !== null) written.add(owner, false);
      return write;
    },
  };
}

function watchedPendingChanges(
  tx: Repositories,
  written: Written,
  noteBefore: NoteBefore,
): PendingChangesRepository {
  return {
    ...tx.pendingChanges,
    async record(input) {
      const owner = await tx.outbox.subscriptionOwner(input.subscriptionId);
      if (owner !== null) await noteBefore(owner);
      await tx.pendingChanges.record(input);
      if (owner !== null) written.add(owner, false);
    },
  };
}

/**
 * The transaction's repositories, noting in `written` what they write and, through `readNow`,
 * what each subject never told was before it.
 */
export function watchedRepositories(
  tx: Repositories,
  written: Written,
  readNow: (ref: SubjectRef) => Promise<Announced>,
): Repositories {
  const noteBefore: NoteBefore = async (ref) => {
    if (written.untoldBefore.has(keyOf(ref))) return;
    const told = await tx.outbox.wasTold(ref);
    written.untoldBefore.set(keyOf(ref), told ? null : await readNow(ref));
  };
  return {
    ...tx,
    subscriptions: watchedSubscriptions(tx, written, noteBefore),
    pendingChanges: watchedPendingChanges(tx, written, noteBefore),
  };
}
