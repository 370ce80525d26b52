// What a subscription is to this service, whatever provider stands behind it: the provider's terms,
// the state stored with what the ordering guard needs, the schedule that will change it, and a read
// stamped with the provider's clock.
import type { SubjectRef } from './callers.ts';

export type SubscriptionStatus =
  | 'active'
  | 'trialing'
  | 'past_due'
  | 'incomplete'
  | 'incomplete_expired'
  | 'unpaid'
  | 'canceled'
  | 'paused';

/** What decides a subscription's tier; the provider's view and our stored state both carry it. */
export interface SubscriptionTerms {
  id: string;
  customerId: string;
  status: SubscriptionStatus;
  priceId: string | null;
  /** Its (first) item, whose quantity is the seats an organisation is billed for; null: none. */
  itemId: string | null;
  quantity: number | null;
  cancelAtPeriodEnd: boolean;
  /**
   * When the subscription is scheduled to end (Stripe's `cancel_at`). The flexible billing mode
   * schedules a cancellation at the period end with this alone, cancelAtPeriodEnd staying false.
   */
  cancelAt: Date | null;
  currentPeriodEnd: Date | null;
  trialEnd: Date | null;
  createdAt: Date;
}

/** A subscription as the payment provider reports it, in an event or a read. */
export interface ProviderSubscription extends SubscriptionTerms {
  metadataUserId: string | null;
  metadataOrgId: string | null;
  /**
   * The schedule managing it, when the read expanded it (a listing does); null: none manages it;
   * absent: not read (an event names the schedule by id only).
   */
  schedule?: ProviderSchedule | null;
}

/** A subscription as stored: the provider's terms, who pays, and what the ordering guard needs. */
export interface SubscriptionState extends SubscriptionTerms {
  owner: SubjectRef;
  paymentFailedAt: Date | null;
  /**
   * Unix seconds, provider clock: the stored state is the provider's as of this second (the
   * `created` of the newest event applied, or the provider's time of the read it came from). An
   * event created before it is contained in this state.
   */
  asOf: number;
  /** Bumped by every write, so a provider read applies only over the state it was started after. */
  revision: number;
}

/** A read from the provider, stamped with the provider's own clock. */
export interface ProviderRead<T> {
  value: T;
  /** Unix seconds, provider clock (its response's `Date`): the value is current as of this second. */
  readAt: number;
}

/** A change a subscription schedule will make: the price its next phase moves the subscription to. */
export interface PendingChange {
  priceId: string;
  effectiveAt: Date;
}

/** A subscription schedule as the provider reports it: the subscription it manages and the change it holds. */
export interface ProviderSchedule {
  id: string;
  /** The subscription it manages, or once released the one it managed; null when none. */
  subscriptionId: string | null;
  /** Released, canceled or completed: it changes nothing any more. */
  ended: boolean;
  /** The price of the phase after the current one, when it differs; null otherwise. */
  change: PendingChange | null;
}
