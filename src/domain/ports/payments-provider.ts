// The payment provider, as the domain needs it. Failures surface as
// DomainError('payments_unavailable'), or DomainError('payments_throttled') when it asks us to slow
// down (with `retryAfterSeconds` in the details when it says how long); an answer the adapter
// cannot translate, as UnmappableAnswer (errors.ts).
import type { NewCheckoutSession, ProviderCheckoutSession } from '../model/checkout.ts';
import type { ObjectNotice, PaymentEvent } from '../model/payment-events.ts';
import type { ProviderRead, ProviderSubscription } from '../model/subscriptions.ts';
import type { SubjectRef } from '../model/callers.ts';

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

/** A price as the provider has it. */
export interface ProviderPrice {
  id: string;
  product: string;
  currency: string;
  /** `month` or `year` for a price recurring every one of them; null for any other. */
  interval: 'month' | 'year' | null;
  /** A one-time price (a credit pack's), not a recurring one. */
  oneTime: boolean;
  /** In the currency's smallest unit; null when the price has none (tiered, custom). */
  unitAmount: number | null;
}

/** A one-time purchase of a credit pack: Checkout in payment mode, the pack's price, quantity 1. */
export interface NewPackCheckout {
  customerId: string;
  owner: SubjectRef;
  pack: string;
  priceId: string;
  successUrl: string;
  cancelUrl: string;
  automaticTax: boolean;
}

/** The prices the service's own billing portal configuration lets a subscription move between. */
export interface PortalConfigurationSpec {
  products: { product: string; prices: string[] }[];
}

/** The service's own portal configuration after start-up: found as it should be, made, or set back. */
export interface OwnPortalConfiguration {
  id: string;
  outcome: 'kept' | 'made' | 'restored';
  /** What had been changed by hand and was set back (setting names); [] unless restored. */
  restored: string[];
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
  createPackCheckoutSession(
    input: NewPackCheckout,
    idempotencyKey: string,
  ): Promise<ProviderCheckoutSession>;
  retrieveCheckoutSession(id: string): Promise<ProviderCheckoutSession>;
  /** Expires an open session so it can no longer be paid; answers the session as it then is. */
  expireCheckoutSession(id: string): Promise<ProviderCheckoutSession>;
  /**
   * The subscription as of a read (null when the provider does not know it) that is as recent as
   * `recency` asks (default: sent now). An adapter may hand one read to several callers.
   */
  retrieveSubscription(id: string, recency?: ReadRecency): Promise<SubscriptionRead>;
  /** Cancels the subscription now, without a final invoice. */
  cancelSubscription(id: string): Promise<void>;
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
  /**
   * The address of a hosted billing-portal session where the customer manages their subscriptions,
   * on the given portal configuration; `configuration_refused` when the provider will not use that
   * configuration (deactivated or unknown there).
   */
  createPortalSession(input: {
    customerId: string;
    returnUrl: string;
    configurationId: string;
  }): Promise<{ url: string } | 'configuration_refused'>;
  /** The price, or null when the provider does not know it. */
  retrievePrice(id: string): Promise<ProviderPrice | null>;
  /**
   * The billing portal configuration the service owns (marked as its own in its metadata) as
   * `spec` says: made when there is none, set back when it was changed. Not safe to run twice at
   * once: the caller makes sure one instance at a time does.
   */
  ensurePortalConfiguration(spec: PortalConfigurationSpec): Promise<OwnPortalConfiguration>;
}
