// The simulator's one clock, as a Stripe test clock's frozen_time is the time of the objects on it:
// every page, subscription, invoice, schedule and customer reads it, and the actions that move time
// (Renew, Fail renewal, End period) advance it to the period boundary they reach, so a cancellation
// or a payment made after a renewal is dated after that renewal. Unlike a test clock it keeps
// ticking with real time from there. It is kept as an offset from real time in sim_objects, so it
// survives a restart on PostgreSQL. What concerns the network stays on real time, as at Stripe: an
// event's `created` (its receiver checks it against the signature's time), signatures, the Date
// header, delivery retries.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Documents } from './store.ts';

const CLOCK_ID = 'clock_simulator';

interface ClockDoc {
  id: string;
  object: 'simulator_clock';
  /** Seconds the clock is ahead of real time. */
  offset: number;
  created: number;
}

const realSeconds = (): number => Math.floor(Date.now() / 1000);

export class SimClock {
  private offset = 0;

  now(): number {
    return realSeconds() + this.offset;
  }

  /** Reads the offset stored by an earlier run. */
  async load(docs: Documents): Promise<void> {
    const stored = await docs.get<ClockDoc>('simulator_clock', CLOCK_ID);
    this.offset = stored?.data.offset ?? 0;
  }

  /**
   * Moves the clock to `at` when `at` is ahead of it (never back), stored with the transaction of
   * `docs`; `undo` puts it back should that transaction fail.
   */
  async advanceTo(docs: Documents, at: number): Promise<{ undo(): void }> {
    const before = this.offset;
    if (at <= this.now()) return { undo: () => {} };
    this.offset = at - realSeconds();
    const doc: ClockDoc = {
      id: CLOCK_ID,
      object: 'simulator_clock',
      offset: this.offset,
      created: at,
    };
    await docs.save('simulator_clock', doc);
    return { undo: () => (this.offset = before) };
  }
}

const current = new AsyncLocalStorage<SimClock>();

/** Runs `work` (a request's handling) on `clock`: nowSeconds() there reads it. */
export const onClock = <T>(clock: SimClock, work: () => T): T => current.run(clock, work);

/**
 * The current time in unix seconds on the clock of the simulator serving this request; real time
 * outside one (start-up seeding).
 */
export const nowSeconds = (): number => current.getStore()?.now() ?? realSeconds();
