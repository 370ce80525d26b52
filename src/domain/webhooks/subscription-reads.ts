// Reads of subscriptions from the provider, outside any transaction. In a process, deliveries for
// one subscription share one read (single flight), and a read a few seconds old is reused when it
// is known to contain what the caller needs; across instances the database decides, since whether
// a read may be applied is checked in the transaction against the stored, locked state.
import type { ProviderRead, ProviderSubscription, SubscriptionState } from '../model.ts';
import { DomainError } from '../errors.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';

export interface SubscriptionRead extends ProviderRead<ProviderSubscription | null> {
  /** Local monotonic time (ms) the request was sent: the read contains all that was committed before. */
  startedAt: number;
}

/** A read younger than this may serve another delivery. */
const REUSE_MS = 5_000;
const MAX_REMEMBERED = 10_000;
/** Reads in flight at once: a burst of first deliveries queues here rather than at the provider's rate limit. */
const MAX_IN_FLIGHT = 8;

interface Entry {
  startedAt: number;
  read: Promise<SubscriptionRead>;
  done?: SubscriptionRead;
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
      if (entry === undefined || this.clock() - entry.startedAt >= REUSE_MS) return this.start(id);
      if (entry.startedAt >= sentAfter) return entry.read;
      const done = entry.done ?? (waited ? undefined : await entry.read.catch(() => undefined));
      if (done !== undefined && done.readAt > newerThan) return done;
      if (waited || this.entries.get(id) === entry) return this.start(id);
    }
  }

  private start(id: string): Promise<SubscriptionRead> {
    const now = this.clock();
    // `startedAt` is taken before any queueing: the request leaves no earlier than that.
    const read = this.inTurn(() => this.payments.retrieveSubscription(id)).then((result) => (entry.done = { ...result, startedAt: now }));
    const entry: Entry = { startedAt: now, read };
    // A failed read is not shared with those who come later: they ask again.
    read.catch(() => this.entries.get(id) === entry && this.entries.delete(id));
    this.entries.delete(id);
    this.entries.set(id, entry);
    this.forgetOld(now);
    return read;
  }

  private async inTurn<T>(work: () => Promise<T>): Promise<T> {
    if (this.inFlight >= MAX_IN_FLIGHT) await new Promise<void>((resolve) => this.queued.push(resolve));
    this.inFlight += 1;
    try {
      return await work();
    } finally {
      this.inFlight -= 1;
      this.queued.shift()?.();
    }
  }

  /** Entries are in the order their reads started: the old ones are at the front. */
  private forgetOld(now: number): void {
    for (const [id, entry] of this.entries) {
      if (now - entry.startedAt < REUSE_MS && this.entries.size <= MAX_REMEMBERED) return;
      this.entries.delete(id);
    }
  }
}

/** Thrown inside a transaction when what it found changes the decision: roll back, decide again. */
export class DecideAgain extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'DecideAgain';
  }
}

/** The transaction needs a provider read newer than the state it found (read outside it). */
export class ReadNeeded extends DecideAgain {
  constructor(
    readonly subscriptionId: string,
    readonly observed: SubscriptionState | null,
    readonly observedAt: number,
  ) {
    super(`subscription ${subscriptionId} needs a provider read`);
  }
}

/** The reads one delivery has made, and whether each may be applied over what is stored now. */
export class DeliveryReads {
  private readonly reads = new Map<string, { read: SubscriptionRead; basedOn: number | undefined }>();
  private readonly receivedAt: number;

  constructor(
    private readonly shared: SubscriptionReads,
    /** The event's `created`: a read used for it must contain it. */
    private readonly created: number,
  ) {
    this.receivedAt = shared.clock();
  }

  /** Reads the subscription, newer than `observed` (the stored state seen at `observedAt`, null: none). */
  async fetch(id: string, observed: SubscriptionState | null, observedAt = this.shared.clock()): Promise<void> {
    const read = await this.shared.read(id, Math.max(this.receivedAt, observedAt), Math.max(this.created, observed?.asOf ?? 0)).catch((error: unknown) => {
      throw error instanceof DomainError ? new DomainError(error.code, error.message, { ...error.details, subscription: id }) : error;
    });
    // Sent after the state was seen: it contains that state, so it may replace it while it is unchanged.
    this.reads.set(id, { read, basedOn: read.startedAt >= observedAt ? observed?.revision : undefined });
  }

  /**
   * The read to apply over `stored` (locked by the caller): any (each contains the event) where
   * nothing is stored, else one sent after this very state was seen, or one stamped later than it.
   * Otherwise throws ReadNeeded.
   */
  usable(id: string, stored: SubscriptionState | null): SubscriptionRead {
    const entry = this.reads.get(id);
    const newer = (read: SubscriptionRead, basedOn: number | undefined) => stored === null || basedOn === stored.revision || read.readAt > stored.asOf;
    if (entry && newer(entry.read, entry.basedOn)) return entry.read;
    throw new ReadNeeded(id, stored, this.shared.clock());
  }
}
