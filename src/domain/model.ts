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

/** Who is calling, as proven by a verified access token. */
export interface Principal {
  idpId: string;
  email: string;
}

/** What decides a subscription's tier; the provider's view and our stored state both carry it. */
export interface SubscriptionTerms {
  id: string;
  customerId: string;
  status: SubscriptionStatus;
  priceId: string | null;
  cancelAtPeriodEnd: boolean;
  currentPeriodEnd: Date | null;
  createdAt: Date;
}

/** A subscription as the payment provider reports it, in an event or a read. */
export interface ProviderSubscription extends SubscriptionTerms {
  metadataUserId: string | null;
}

/** A subscription as stored: the provider's terms, its user, and what the ordering guard needs. */
export interface SubscriptionState extends SubscriptionTerms {
  userId: string;
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
  /** The subscription that decides the tier, if any. */
  subscription: SubscriptionState | null;
}

export interface CheckoutSessionRecord {
  id: string;
  userId: string;
  url: string;
  priceId: string;
  successUrl: string;
  cancelUrl: string;
  expiresAt: Date;
}

/** A hosted checkout session as the payment provider reports it. */
export interface ProviderCheckoutSession {
  id: string;
  url: string;
  status: 'open' | 'complete' | 'expired';
  expiresAt: Date;
}

export interface NewCheckoutSession {
  customerId: string;
  priceId: string;
  userId: string;
  successUrl: string;
  cancelUrl: string;
}

/** A verified provider event, translated by the adapter into what the handlers need. */
export type PaymentEvent = {
  id: string;
  type: string;
  /** Unix seconds, provider clock. */
  created: number;
  livemode: boolean;
} & (
  | { kind: 'checkout_session'; session: { id: string; userId: string | null; customerId: string | null; subscriptionId: string | null } }
  | { kind: 'subscription'; subscription: ProviderSubscription }
  | { kind: 'invoice'; subscriptionId: string | null; customerId: string | null }
  | { kind: 'other' }
);

/** The record of a processed event, written in the same transaction as its effects. */
export interface WebhookEventRecord {
  id: string;
  type: string;
  livemode: boolean;
  outcome: 'processed' | 'ignored';
  created: number;
}
