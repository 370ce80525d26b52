// Exactly-once for provider events: the handler's effects and the event's record in one
// transaction, so neither is kept without the other, and deliveries of one event taking turns.
import type { SubscriptionState, WebhookEventRecord } from '../model.ts';
import type { Repositories } from './store.ts';

/** A subscription's state as an event carries it, as of the event's `created` (its `asOf`). */
export type CarriedState = Omit<SubscriptionState, 'revision' | 'owner'>;

/**
 * What recordWithState did: wrote the state over an older one, left a newer one alone (the event
 * is contained in it), found the event recorded already, or could not settle it alone (nothing
 * done).
 */
export type OneStep = 'written' | 'older' | 'duplicate' | 'unsettled';

export interface EventLedger {
  /**
   * Unless the event is recorded already (false, nothing run): runs `apply` in a transaction that
   * holds the event (deliveries of one event take turns, on every instance), then writes the
   * record, then commits. If `apply` throws, both roll back and the error is rethrown.
   */
  recordOnce(
    record: WebhookEventRecord,
    apply: (tx: Repositories) => Promise<void>,
  ): Promise<boolean>;
  /**
   * recordOnce for an event whose whole effect is the subscription state it carries, in one step:
   * unless the event is recorded already ('duplicate'), the state is written over a stored one of
   * the same customer as of an earlier second ('written'), or a stored one as of a later second is
   * left alone ('older'), and the event is recorded. Where neither holds (nothing stored, another
   * customer, the same second) nothing is done ('unsettled'), and the caller takes the long way.
   */
  recordWithState(record: WebhookEventRecord, state: CarriedState): Promise<OneStep>;
  /** Whether the event is recorded already: a delivery may skip work it would only throw away. */
  isRecorded(eventId: string): Promise<boolean>;
  /**
   * The type of an event this process has seen recorded, answered from memory with no database
   * work; undefined when it does not remember the event (recorded or not).
   */
  rememberedType(eventId: string): string | undefined;
  /** A failed attempt, kept outside the rolled-back transaction so operators see what keeps failing. */
  recordFailure(failure: { eventId: string; type: string; error: string }): Promise<void>;
  /**
   * Deletes the records of events created before `createdBefore`, in small batches, stopping
   * between batches once `signal` is aborted; resolves to how many went. Such an event, delivered
   * again, is processed again: the ordering guard keeps it from overwriting newer state.
   */
  forgetEvents(createdBefore: Date, signal: AbortSignal): Promise<number>;
  /** The same for failure records kept before `before`. */
  forgetFailures(before: Date, signal: AbortSignal): Promise<number>;
}
