// The domain's own types: what users, subscriptions, checkout sessions and provider events are to
// this service, whatever database or provider stands behind them. The ports (ports/) speak in them.

export type SubscriptionStatus =
  | 'active'
  | 'trialing'
  | 'past_due'
  | 'incomplete'
  | 'incomplete_expired'
  | 'unpaid'
  | 'canceled'
  | 'paused';

/**
 * The organisation a verified token names: one, with the caller's role(s) there as the token gives
 * them (read from each token, never stored), or several, which names none for billing.
 */
export type OrganizationClaim =
  { kind: 'one'; idpOrgId: string; role: string | string[] | null } | { kind: 'several' };

/** Who is calling, as proven by a verified access token. */
export interface Principal {
  idpId: string;
  email: string;
  /** Null when the token names no organisation (or organisations are off). */
  organization: OrganizationClaim | null;
}

/** A caller with a token that may be a backend's (a client-credentials grant). */
export interface ServiceCaller {
  scopes: ReadonlySet<string>;
  /** The OAuth client the token was issued to (`client_id`, RFC 9068, else `azp`); null: none named. */
  client: string | null;
  /**
   * What in the token a backend's never carries: an organisation, an e-mail, an ID token's
   * `nonce`, a logout token's `events`, a grant other than client credentials. Empty for a backend.
   */
  personal: string[];
}

/** Who pays: a user, or an organisation its members' tokens name. */
export interface SubjectRef {
  type: 'user' | 'organization';
  /** Our own id of the user or organisation. */
  id: string;
}

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
  schedule?: ScheduleEvent['schedule'] | null;
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

export interface User {
  id: string;
  idpId: string;
  email: string;
  plan: string | null;
  paymentsCustomerId: string | null;
  createdAt: Date;
  /** When a subscription was first stored for the user, however it came; null: never (a trial is possible). */
  firstSubscriptionAt: Date | null;
  /** The subscription that decides the tier, if any. */
  subscription: SubscriptionState | null;
}

/** An organisation, as a token's issuer and claim name it, with the subscription its members share. */
export interface Organization {
  id: string;
  issuer: string;
  idpOrgId: string;
  plan: string | null;
  paymentsCustomerId: string | null;
  createdAt: Date;
  /** When a subscription was first stored for it; null: never (a trial is possible). */
  firstSubscriptionAt: Date | null;
  /** The subscription that decides its tier, if any. */
  subscription: SubscriptionState | null;
}

/** What a billing subject, a user or an organisation, is to checkout, the portal and the tier. */
export type BillingAccount = Pick<
  User,
  'id' | 'plan' | 'paymentsCustomerId' | 'firstSubscriptionAt' | 'subscription'
>;

export interface CheckoutSessionRecord {
  id: string;
  owner: SubjectRef;
  url: string;
  priceId: string;
  /** The seats it sells (1 for a user). */
  quantity: number;
  successUrl: string;
  cancelUrl: string;
  /** The trial the session offers, in days; null: none. */
  trialDays: number | null;
  expiresAt: Date;
}

/** A hosted checkout session as the payment provider reports it. */
export interface ProviderCheckoutSession {
  id: string;
  url: string;
  status: 'open' | 'complete' | 'expired';
  expiresAt: Date;
}

/** What a checkout sells besides the price, all chosen on the server, never by the request. */
export interface CheckoutOffer {
  /** Days of trial; null: none. */
  trialDays: number | null;
  /** Whether a trial needs a card up front; without one, a trial that ends unpaid cancels. */
  trialRequiresCard: boolean;
  allowPromotionCodes: boolean;
  automaticTax: boolean;
}

export interface NewCheckoutSession {
  customerId: string;
  priceId: string;
  quantity: number;
  /** Named in the session (client_reference_id) and in the subscription's metadata. */
  owner: SubjectRef;
  successUrl: string;
  cancelUrl: string;
  offer: CheckoutOffer;
}

/** What every verified provider event carries, whatever its kind. */
interface EventFacts {
  id: string;
  type: string;
  /** Unix seconds, provider clock. */
  created: number;
  livemode: boolean;
}

export interface CheckoutSessionEvent extends EventFacts {
  kind: 'checkout_session';
  session: {
    id: string;
    /** Our ids the session names: an organisation's (metadata), else a user's (client_reference_id). */
    userId: string | null;
    orgId: string | null;
    customerId: string | null;
    subscriptionId: string | null;
    /** `payment`: a one-time purchase (a credit pack, named in `creditPack`); `subscription` otherwise. */
    mode: 'payment' | 'setup' | 'subscription';
    paymentStatus: 'paid' | 'unpaid' | 'no_payment_required';
    /** The pack a credit checkout sells (its metadata's `credit_pack`); null for any other. */
    creditPack: string | null;
    paymentIntentId: string | null;
  };
}

/** A change a subscription schedule will make: the price its next phase moves the subscription to. */
export interface PendingChange {
  priceId: string;
  effectiveAt: Date;
}

/** A subscription schedule's event: the subscription it manages and the change it holds. */
export interface ScheduleEvent extends EventFacts {
  kind: 'schedule';
  schedule: {
    id: string;
    /** The subscription it manages, or once released the one it managed; null when none. */
    subscriptionId: string | null;
    /** Released, canceled or completed: it changes nothing any more. */
    ended: boolean;
    /** The price of the phase after the current one, when it differs; null otherwise. */
    change: PendingChange | null;
  };
}

export interface SubscriptionEvent extends EventFacts {
  kind: 'subscription';
  subscription: ProviderSubscription;
}

export interface InvoiceEvent extends EventFacts {
  kind: 'invoice';
  subscriptionId: string | null;
  customerId: string | null;
  invoice: {
    id: string;
    /** Why it was made: `subscription_create` and `subscription_cycle` open a new period. */
    billingReason: string | null;
    /** The subscription's line: its price and the period it bills; null when it has none. */
    line: { priceId: string; periodEnd: Date } | null;
  };
}

/** A charge's event: a refund names the payment it refunds and how much of it is refunded by now. */
export interface ChargeEvent extends EventFacts {
  kind: 'charge';
  charge: {
    id: string;
    paymentIntentId: string | null;
    amount: number;
    /** Refunded so far, all refunds together. */
    amountRefunded: number;
  };
}

export interface OtherEvent extends EventFacts {
  kind: 'other';
}

/**
 * A thin event (the provider's event notification) about a subscription: it says that the
 * subscription changed, and when, and carries none of it; the handler reads it from the provider.
 */
export interface SubscriptionNotice extends EventFacts {
  kind: 'subscription_notice';
  subscriptionId: string;
}

/**
 * A thin event about another object (an invoice, a checkout session), which the service reads from
 * the provider before handling it as the snapshot event of the same type (webhook-service.ts).
 */
export interface ObjectNotice extends EventFacts {
  kind: 'object_notice';
  /** The object the event is about: the provider's name of its type, and its id. */
  related: { type: string; id: string };
}

/**
 * A verified event the adapter cannot translate (a customer it cannot name, a shape it does not
 * know): acknowledged, recorded with its reason, never handled.
 */
export interface UnmappableEvent extends EventFacts {
  kind: 'unmappable';
  reason: string;
}

/** A verified provider event, translated by the adapter into what the handlers need. */
export type PaymentEvent =
  | CheckoutSessionEvent
  | SubscriptionEvent
  | ScheduleEvent
  | InvoiceEvent
  | ChargeEvent
  | OtherEvent
  | SubscriptionNotice
  | ObjectNotice
  | UnmappableEvent;

/**
 * The provider's event types the service acts on, each with the kind of event it is translated
 * to, which is the kind its handler takes (webhooks/handlers/index.ts). Any other type is recorded
 * and acknowledged as `ignored`. The payments adapter checks these names against the provider
 * SDK's own list of event types, and that it translates each to this kind (stripe-mapping.ts).
 */
export interface HandledEvents {
  'checkout.session.completed': CheckoutSessionEvent;
  'checkout.session.async_payment_succeeded': CheckoutSessionEvent;
  'charge.refunded': ChargeEvent;
  'customer.subscription.created': SubscriptionEvent;
  'customer.subscription.updated': SubscriptionEvent;
  'customer.subscription.deleted': SubscriptionEvent;
  'customer.subscription.trial_will_end': SubscriptionEvent;
  'invoice.paid': InvoiceEvent;
  'invoice.payment_failed': InvoiceEvent;
  'subscription_schedule.created': ScheduleEvent;
  'subscription_schedule.updated': ScheduleEvent;
  'subscription_schedule.released': ScheduleEvent;
  'subscription_schedule.canceled': ScheduleEvent;
  'subscription_schedule.completed': ScheduleEvent;
  // The same six as thin events (`v1.` and the snapshot type): a subscription's three are read
  // by their handler; the others are read by the service and then handled as their snapshots.
  'v1.checkout.session.completed': CheckoutSessionEvent;
  'v1.checkout.session.async_payment_succeeded': CheckoutSessionEvent;
  'v1.charge.refunded': ChargeEvent;
  'v1.customer.subscription.created': SubscriptionNotice;
  'v1.customer.subscription.updated': SubscriptionNotice;
  'v1.customer.subscription.deleted': SubscriptionNotice;
  'v1.invoice.paid': InvoiceEvent;
  'v1.invoice.payment_failed': InvoiceEvent;
}

export type HandledEventType = keyof HandledEvents;

/** The record of a processed event, written in the same transaction as its effects. */
export interface WebhookEventRecord {
  id: string;
  type: string;
  livemode: boolean;
  outcome: 'processed' | 'ignored';
  created: number;
}
