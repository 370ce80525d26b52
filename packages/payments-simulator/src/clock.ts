// The simulator's clocks, one per customer, as a Stripe test clock's frozen_time is the time of the
// customer on it: every page, subscription, invoice and schedule of that customer reads it, and the
// actions that move time (Renew, Fail renewal, End period) advance it to the period boundary they
// reach, so a cancellation or a payment made after a renewal is dated after that renewal; other
// customers stay on real time. Unlike a test clock it keeps ticking with real time from there. It is
// kept as an offset from real time in sim_objects, so it survives a restart on PostgreSQL. What concerns the network stays on real time, as at Stripe: an
// event's `created` (its receiver checks it against the signature's time), signatures, the Date
// header, delivery retries.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { SqlClient } from './sql-client.ts';

/** Where a clock is kept: the documents of the transaction that moves it (store.ts). */
interface ClockDocuments {
  save(type: 'simulator_clock', doc: ClockDoc): Promise<void>;
}

interface ClockDoc {
  id: string;
  object: 'simulator_clock';
  customer: string;
  /** Seconds the customer's clock is ahead of real time. */
  offset: number;
  created: number;
}

const realSeconds = (): number => Math.floor(Date.now() / 1000);

/** Each customer's clock, as an offset from real time (none: real time). */
export class SimClock {
  private readonly offsets = new Map<string, number>();

  now(customer: string | null): number {
    return realSeconds() + (customer === null ? 0 : (this.offsets.get(customer) ?? 0));
  }

  /** Reads the offsets stored by an earlier run. */
  async load(db: SqlClient): Promise<void> {
    const rows = await db.query<{ data: string }>(
      "SELECT data FROM sim_objects WHERE type = 'simulator_clock'",
    );
    for (const { data } of rows) {
      const doc = JSON.parse(data) as ClockDoc;
      this.offsets.set(doc.customer, doc.offset);
    }
  }

  /**
   * Moves `customer`'s clock to `at` when `at` is ahead of it (never back), stored with the
   * transaction of `docs`; `undo` puts it back should that transaction fail.
   */
  async advanceTo(docs: ClockDocuments, customer: string, at: number): Promise<{ undo(): void }> {
    const before = this.offsets.get(customer);
    if (at <= this.now(customer)) return { undo: () => {} };
    const offset = at - realSeconds();
    this.offsets.set(customer, offset);
    const id = `clock_${customer}`;
    const doc: ClockDoc = { id, object: 'simulator_clock', customer, offset, created: at };
    await docs.save('simulator_clock', doc);
    return {
      undo: () =>
        before === undefined ? this.offsets.delete(customer) : this.offsets.set(customer, before),
    };
  }
}

/** A request's clock, and the customer whose time it is once the request names one. */
interface Scope {
  clock: SimClock;
  customer: string | null;
}

const current = new AsyncLocalStorage<Scope>();

/** Runs `work` (a request's handling) on `clock`, on real time until a customer is named. */
export const onClock = <T>(clock: SimClock, work: () => T): T =>
  current.run({ clock, customer: null }, work);

/** From here on, this request's time is `customer`'s (the subscription or session it acts on). */
export function useCustomerClock(customer: string): void {
  const scope = current.getStore();
  if (scope !== undefined) scope.customer = customer;
}

/** The customer whose clock this request runs on, if any. */
export const clockCustomer = (): string | null => current.getStore()?.customer ?? null;

/**
 * The current time in unix seconds on the clock of the customer this request acts on; real time
 * before one is named and outside a request (start-up seeding).
 */
export const nowSeconds = (): number => {
  const scope = current.getStore();
  return scope === undefined ? realSeconds() : scope.clock.now(scope.customer);
};
