// The payment provider, as the domain needs it. Failures surface as
// DomainError('payments_unavailable'), or DomainError('payments_throttled') when it asks us to slow
// down (with `retryAfterSeconds` in the details when it says how long); an answer the adapter
// cannot translate, as UnmappableAnswer (errors.ts).
import type {
  NewCheckoutSession,
  ObjectNotice,
  PaymentEvent,
  ProviderCheckoutSession,
  ProviderRead,
  ProviderSubscription,
  SubjectRef,
} from '../model.ts';

export interface SubscriptionsPage {
  subscriptions: ProviderSubscription[];
  /**
   * Listed subscriptions the service cannot translate (an Accounts v2 account's, which has no
   * customer), with the reason: never linked to a user, and no reason to stop the listing.
   */
  untranslatable: { id: string; reason: string }[];
  /** Where the next page starts; null when this is the last. */
  next: string | null;
}

/** The clock of a read's `sentAt` and of `ReadRecency.sentFrom`: this process's, monotonic, in ms. */
export const readClock = (): number => performance.now();

/** What a subscription read must contain for the caller: either condition will do. */
export interface ReadRecency {
  /** Sent at or after this (readClock): it contains everything committed before. */
  sentFrom: number;
  /** Or stamped by the provider later than this second: it contains everything up to it. */
  stampedAfter: number;
}

export interface SubscriptionRead extends ProviderRead<ProviderSubscription | null> {
  /** When the request was sent (readClock), or earlier: the read contains all committed before. */
  sentAt: number;
}

export interface PaymentsProvider {
  /** A customer for who pays, named in its metadata; an organisation's has a name and no e-mail. */
  createCustomer(
    input: { owner: SubjectRef; email?: string; name?: string },
    idempotencyKey: string,
  ): Promise<string>;
  createCheckoutSession(
    input: NewCheckoutSession,
    idempotencyKey: string,
  ): Promise<ProviderCheckoutSession>;
  retrieveCheckoutSession(id: string): Promise<ProviderCheckoutSession>;
  /**
   * The subscription as of a read (null when the provider does not know it) that is as recent as
   * `recency` asks (default: sent now). An adapter may hand one read to several callers.
   */
  retrieveSubscription(id: string, recency?: ReadRecency): Promise<SubscriptionRead>;
  /** Every subscription of the customer, in any status (ended ones included), newest first. */
  listSubscriptions(customerId: string): Promise<ProviderRead<ProviderSubscription[]>>;
  /**
   * One page of every subscription of the account, in any status, newest first, with the cursor
   * of the next page (null after the last): one list call of up to 100 subscriptions.
   */
  listSubscriptionsPage(after: string | null): Promise<ProviderRead<SubscriptionsPage>>;
  /** Whether the provider has this customer (and it is not deleted). */
  customerExists(customerId: string): Promise<boolean>;
  /**
   * A thin event completed with its object read now: the event its snapshot would be (an invoice's
   * or a checkout session's), or an `unmappable` one when the provider does not know the object.
   */
  completeNotice(notice: ObjectNotice): Promise<PaymentEvent>;
  /** Events whose delivery to our endpoint has not succeeded yet, oldest first. */
  undeliveredEvents(): Promise<PaymentEvent[]>;
  /**
   * Sets the quantity of the subscription's item, the difference prorated on the next invoice (no
   * invoice per change); the idempotency key makes repeated calls one change. Answers the
   * subscription as the provider has it after the change.
   */
  updateSubscriptionQuantity(
    input: { subscriptionId: string; itemId: string; quantity: number },
    idempotencyKey: string,
  ): Promise<ProviderRead<ProviderSubscription>>;
  /** The address of a hosted billing-portal session where the customer manages their subscriptions. */
  createPortalSession(input: { customerId: string; returnUrl: string }): Promise<{ url: string }>;
}
