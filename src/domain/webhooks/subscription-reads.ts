// Reads of subscriptions from the provider, outside any transaction. In a process, deliveries for
// one subscription share one read (single flight), and a read finished a few seconds ago is
// reused when it is known to contain what the caller needs. Across instances the database
// decides: whether a read may be applied is checked in the transaction (delivery-reads.ts).
import type { ProviderRead, ProviderSubscription } from '../model.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';

export interface SubscriptionRead extends ProviderRead<ProviderSubscription | null> {
  /** Local monotonic time (ms) the request was sent: the read contains all that was committed before. */
  sentAt: number;
}

/** A read finished less than this ago may serve another delivery. */
const REUSE_MS = 5_000;
const MAX_REMEMBERED = 10_000;
/** Reads in flight at once: a burst of first deliveries queues here rather than at the provider's rate limit. */
const MAX_IN_FLIGHT = 8;

interface Entry {
  /** When it was queued, then when it was sent: never later than the request left. */
  sentAt: number;
  read: Promise<SubscriptionRead>;
  done?: SubscriptionRead;
  doneAt?: number;
}

export class SubscriptionReads {
  private readonly entries = new Map<string, Entry>();
  private inFlight = 0;
  private readonly queued: (() => void)[] = [];

  constructor(
    private readonly payments: PaymentsProvider,
    readonly clock: () => number = () => performance.now(),
  ) {}

  /**
   * A read of the subscription sent at or after `sentAfter`, or one the provider stamped later
   * than the second `newerThan` (so it contains everything up to it). One read at a time per
   * subscription: a caller that cannot use the read in flight waits for it, looks at its stamp,
   * and only then, if it does not qualify, sends another.
   */
  async read(id: string, sentAfter: number, newerThan: number): Promise<SubscriptionRead> {
    for (let waited = false; ; waited = true) {
      const entry = this.entries.get(id);
      if (
        entry === undefined ||
        (entry.doneAt !== undefined && this.clock() - entry.doneAt >= REUSE_MS)
      )
        return this.start(id);
      if (entry.sentAt >= sentAfter) return entry.read;
      const done = entry.done ?? (waited ? undefined : await entry.read.catch(() => undefined));
      if (done !== undefined && done.readAt > newerThan) return done;
      if (waited || this.entries.get(id) === entry) return this.start(id);
    }
  }

  private start(id: string): Promise<SubscriptionRead> {
    const entry = { sentAt: this.clock() } as Entry;
    entry.read = this.inTurn(() => {
      entry.sentAt = this.clock();
      return this.payments.retrieveSubscription(id);
    }).then((result) => {
      entry.doneAt = this.clock();
      return (entry.done = { ...result, sentAt: entry.sentAt });
    });
    // A failed read is not shared with those who come later: they ask again.
    entry.read.catch(() => this.entries.get(id) === entry && this.entries.delete(id));
    this.entries.delete(id);
    this.entries.set(id, entry);
    this.forgetOld();
    return entry.read;
  }

  private async inTurn<T>(work: () => Promise<T>): Promise<T> {
    if (this.inFlight >= MAX_IN_FLIGHT)
      await new Promise<void>((resolve) => this.queued.push(resolve));
    this.inFlight += 1;
    try {
      return await work();
    } finally {
      this.inFlight -= 1;
      this.queued.shift()?.();
    }
  }

  /** Entries are in the order their reads were asked for: the old ones are at the front. */
  private forgetOld(): void {
    const now = this.clock();
    for (const [id, entry] of this.entries) {
      const stale = entry.doneAt !== undefined && now - entry.doneAt >= REUSE_MS;
      if (!stale && this.entries.size <= MAX_REMEMBERED) return;
      this.entries.delete(id);
    }
  }
}
