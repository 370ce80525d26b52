// The provider reads one delivery has made, and whether each may be applied over what is stored
// when its transaction looks: a read must contain the event (sent after the delivery arrived, or
// stamped later than the event) and be at least as new as the stored state (sent after that very
// revision was seen, or stamped later than its `asOf`). When none qualifies, the transaction
// throws ReadNeeded, rolls back, and the service reads again outside it.
import type { ProviderSubscription, SubscriptionState } from '../model/subscriptions.ts';
import { DomainError } from '../errors.ts';
import { ordering } from './ordering.ts';
import {
  readClock,
  type PaymentsProvider,
  type SubscriptionRead,
} from '../ports/payments-provider.ts';

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

/** Same terms: applying the one over the other changes nothing a tier or a seat count depends on. */
export function sameTerms(read: ProviderSubscription | null, stored: SubscriptionState): boolean {
  return (
    read !== null &&
    read.customerId === stored.customerId &&
    read.status === stored.status &&
    read.priceId === stored.priceId &&
    read.quantity === stored.quantity &&
    read.itemId === stored.itemId &&
    read.cancelAtPeriodEnd === stored.cancelAtPeriodEnd &&
    sameTime(read.cancelAt, stored.cancelAt) &&
    sameTime(read.currentPeriodEnd, stored.currentPeriodEnd) &&
    sameTime(read.trialEnd, stored.trialEnd)
  );
}

const sameTime = (a: Date | null, b: Date | null) => a?.getTime() === b?.getTime();

export class DeliveryReads {
  private readonly reads = new Map<
    string,
    { read: SubscriptionRead; basedOn: number | undefined }
  >();
  private readonly receivedAt = readClock();

  constructor(
    private readonly payments: PaymentsProvider,
    /** The event's `created`: a read used for it must contain it. */
    private readonly created: number,
  ) {}

  /** Reads the subscription, newer than `observed` (the stored state seen at `observedAt`, null: none). */
  async fetch(
    id: string,
    observed: SubscriptionState | null,
    observedAt = readClock(),
  ): Promise<void> {
    const read = await this.payments
      .retrieveSubscription(id, {
        sentFrom: Math.max(this.receivedAt, observedAt),
        stampedAfter: Math.max(this.created, observed?.asOf ?? 0),
      })
      .catch((error: unknown) => {
        throw error instanceof DomainError
          ? new DomainError(error.code, error.message, { ...error.details, subscription: id })
          : error;
      });
    // Sent after the state was seen: it contains that state, so it may replace it while it is unchanged.
    this.reads.set(id, {
      read,
      basedOn: read.sentAt >= observedAt ? observed?.revision : undefined,
    });
  }

  /**
   * The read to apply over `stored` (locked by the caller): any (each contains the event) where
   * nothing is stored; else one sent after this very state was seen, one stamped later than it, or
   * one that says the same (several deliveries of one second then settle with one read). Otherwise
   * throws ReadNeeded.
   */
  usable(id: string, stored: SubscriptionState | null): SubscriptionRead {
    const entry = this.reads.get(id);
    if (entry === undefined) throw new ReadNeeded(id, stored, readClock());
    const { read, basedOn } = entry;
    if (
      stored === null ||
      basedOn === stored.revision ||
      ordering(read.readAt, stored.asOf) === 'newer' ||
      sameTerms(read.value, stored)
    )
      return read;
    throw new ReadNeeded(id, stored, readClock());
  }
}
