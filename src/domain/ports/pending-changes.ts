// The change a subscription schedule will make, stored until it happens or is dropped.
import type { SubjectRef } from '../model/callers.ts';
import type { PendingChange } from '../model/subscriptions.ts';

/** A subscription's pending change, as its schedule's events say it (migrations/013). */
export interface PendingChangesRepository {
  /**
   * Stores what the schedule's event as of `asOf` says (`change` null: none pending; `ended`: the
   * schedule released, canceled or completed), unless a newer event's is stored. Says who pays
   * for the subscription when it wrote (null: nothing written, or the subscription is not stored).
   */
  record(input: {
    subscriptionId: string;
    scheduleId: string;
    change: PendingChange | null;
    ended: boolean;
    asOf: number;
  }): Promise<SubjectRef | null>;
  /**
   * Whether an active schedule's event of that very second, stored already, says otherwise: a tie
   * the ordering cannot settle.
   */
  tiesWith(input: Parameters<PendingChangesRepository['record']>[0]): Promise<boolean>;
  /**
   * No schedule manages the subscription as of `asOf`: none pending, unless a newer event's is
   * stored. Says who pays for it when it wrote, as `record`.
   */
  clear(subscriptionId: string, asOf: number): Promise<SubjectRef | null>;
  /** The change pending for the subscription; null when none is. */
  of(subscriptionId: string): Promise<PendingChange | null>;
}
