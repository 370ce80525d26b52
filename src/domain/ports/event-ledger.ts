// Exactly-once for provider events: the handler's effects and the event's record in one
// transaction, so neither is kept without the other, and deliveries of one event taking turns.
import type { WebhookEventRecord } from '../model/handled-events.ts';
import type { Repositories } from './store.ts';

export interface EventLedger {
  /**
   * Unless the event is recorded already (false): records it and runs `apply` in one transaction,
   * which holds the event (deliveries of one event take turns, on every instance), then commits.
   * If `apply` throws, both roll back and the error is rethrown. For a recorded event `apply`'s
   * statements are never answered (it may be started, so as to send its first statement with the
   * record, but sees nothing and changes nothing).
   */
  recordOnce(
    record: WebhookEventRecord,
    apply: (tx: Repositories) => Promise<void>,
  ): Promise<boolean>;
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
