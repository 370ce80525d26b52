// Subscription reads shared within this process, around any PaymentsProvider: one read in flight
// per subscription (single flight), a read finished a few seconds ago handed to a caller it is
// recent enough for, and a cap on reads in flight, so a burst of deliveries costs about one read
// per subscription and queues here rather than at the provider's rate limit. Whether a read may
// be applied over what is stored is the domain's to check, in its transaction.
import {
  readClock,
  type PaymentsProvider,
  type ReadRecency,
  type SubscriptionRead,
} from '../../domain/ports/payments-provider.ts';

/** A read finished less than this ago may serve another caller. */
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

/** `payments` with its subscription reads shared; every other operation is its own. */
export function withSharedReads(payments: PaymentsProvider): PaymentsProvider {
  const shared = new SharedReads(payments);
  return { ...payments, retrieveSubscription: (id, recency) => shared.read(id, recency) };
}

class SharedReads {
  private readonly entries = new Map<string, Entry>();
  private inFlight = 0;
  private readonly queued: (() => void)[] = [];

  constructor(private readonly payments: PaymentsProvider) {}

  /**
   * A read as recent as `recency` asks. One read at a time per subscription: a caller that cannot
   * use the read in flight waits for it, looks at its stamp, and only then, if it is not recent
   * enough, sends another.
   */
  async read(
    id: string,
    { sentFrom, stampedAfter }: ReadRecency = { sentFrom: readClock(), stampedAfter: Infinity },
  ): Promise<SubscriptionRead> {
    for (let waited = false; ; waited = true) {
      const entry = this.entries.get(id);
      if (
        entry === undefined ||
        (entry.doneAt !== undefined && readClock() - entry.doneAt >= REUSE_MS)
      )
        return this.start(id);
      if (entry.sentAt >= sentFrom) return entry.read;
      const done = entry.done ?? (waited ? undefined : await entry.read.catch(() => undefined));
      if (done !== undefined && done.readAt > stampedAfter) return done;
      if (waited || this.entries.get(id) === entry) return this.start(id);
    }
  }

  private start(id: string): Promise<SubscriptionRead> {
    const entry = { sentAt: readClock() } as Entry;
    entry.read = this.inTurn(() => {
      entry.sentAt = readClock();
      return this.payments.retrieveSubscription(id);
    }).then((read) => {
      entry.doneAt = readClock();
      return (entry.done = { ...read, sentAt: entry.sentAt });
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
    const now = readClock();
    for (const [id, entry] of this.entries) {
      const stale = entry.doneAt !== undefined && now - entry.doneAt >= REUSE_MS;
      if (!stale && this.entries.size <= MAX_REMEMBERED) return;
      this.entries.delete(id);
    }
  }
}
