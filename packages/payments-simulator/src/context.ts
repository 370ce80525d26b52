// What every route and lifecycle step shares, and `mutate`: the one way state changes. A change and
// the events describing it commit together; the events are then handed to delivery, and the
// caller chooses whether to wait for that (a person's click does, briefly; an API call does not).
import { clockCustomer, type SimClock } from './clock.ts';
import type { SimulatorDatabase } from './sql-client.ts';
import type { Delivery, Log } from './delivery.ts';
import { insertEvent, type EventRef, type Trigger } from './events.ts';
import type { NoticeBoard } from './pages/notice-board.ts';
import type { SimSettings } from './settings.ts';
import { Documents } from './store.ts';

export interface SimContext {
  db: SimulatorDatabase;
  docs: Documents;
  apiKey: string;
  delivery: Delivery;
  /** The customers' clocks (clock.ts). */
  clock: SimClock;
  /** The dashboard's switches (settings.ts). */
  settings: SimSettings;
  log: Log;
  /** The simulator's own origin, known once it listens. */
  baseUrl: string;
  webhookUrl: () => string | null;
  /** What a person's click did, for the page the click lands on (pages/notice-board.ts). */
  notices: NoticeBoard;
  /**
   * Changes made through this context emit no event at all, not even an undelivered one: a change
   * "made in the dashboard" whose event was lost (drift.ts), which only a reconciliation repairs.
   */
  eventsLost?: boolean;
}

export interface Unit {
  docs: Documents;
  emit(type: string, object: object, previous?: Record<string, unknown>): Promise<void>;
  /** Moves the clock of the customer acted on ahead to `at` (a period boundary), with this change. */
  advanceClock(at: number): Promise<void>;
}

export interface Outcome<T> {
  value: T;
  events: EventRef[];
  /** Settles once every event had its first delivery attempt. */
  delivered: Promise<void>;
}

export async function mutate<T>(
  ctx: SimContext,
  trigger: Trigger,
  work: (unit: Unit) => Promise<T>,
): Promise<Outcome<T>> {
  const events: EventRef[] = [];
  const undos: (() => void)[] = [];
  const value = await ctx.db
    .transaction(async (tx) => {
      events.length = 0; // a retried transaction starts its event list afresh
      const docs = new Documents(tx);
      return work({
        docs,
        emit: async (type, object, previous) => {
          if (ctx.eventsLost) return;
          events.push(
            await insertEvent(tx, { type, object, trigger, previous }, ctx.delivery.leaseMs),
          );
        },
        advanceClock: async (at) => {
          const customer = clockCustomer();
          if (customer !== null) undos.push((await ctx.clock.advanceTo(docs, customer, at)).undo);
        },
      });
    })
    .catch((error: unknown) => {
      // The clock moves with the change or not at all.
      for (const undo of undos.reverse()) undo();
      throw error;
    });
  return {
    value,
    events,
    delivered: events.length > 0 ? ctx.delivery.dispatch(events) : Promise.resolve(),
  };
}

/** Waits for `promise`, but no longer than `ms`: a person's click waits for the webhooks, briefly. */
export async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise.catch(() => {}),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]);
  clearTimeout(timer);
}
