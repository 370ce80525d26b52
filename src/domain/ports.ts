// What the domain needs from the outside world, as small interfaces. Adapters implement them;
// composition.ts chooses which. Nothing here knows about HTTP, SQL or an SDK.
import type { SubscriptionStatus } from './billing/tier.ts';

/** Who is calling, as proven by a verified access token. */
export interface Principal {
  idpId: string;
  email: string;
}

export interface TokenVerifier {
  /** Resolves the principal, or throws DomainError('invalid_token'). */
  verify(token: string): Promise<Principal>;
}

export interface SubscriptionState {
  id: string;
  userId: string;
  customerId: string;
  status: SubscriptionStatus;
  priceId: string | null;
  cancelAtPeriodEnd: boolean;
  currentPeriodEnd: Date | null;
  paymentFailedAt: Date | null;
  createdAt: Date;
  /** Unix seconds of the newest event applied to this state. */
  eventCreated: number;
  /** When this state was last re-read from the provider, if ever. */
  syncedAt: Date | null;
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

export interface UsersRepository {
  /** Creates the user on first sight, keeps the e-mail in step; one round trip when nothing changed. */
  upsertByIdpId(idpId: string, email: string): Promise<User>;
  findById(id: string): Promise<User | null>;
  findByIdpId(idpId: string): Promise<User | null>;
  findByCustomerId(customerId: string): Promise<User | null>;
  /**
   * Stores the provider customer unless the user has one, or the customer belongs to another
   * user; returns the user's customer afterwards (null when neither was possible).
   */
  linkCustomer(userId: string, customerId: string): Promise<string | null>;
  /** Sets the plan the user's next checkout is priced at; null when there is no such user. */
  setPlan(idpId: string, plan: string): Promise<User | null>;
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

export interface CheckoutSessionsRepository {
  /** The newest session still marked open for the user, if it has not expired. */
  findOpen(userId: string, now: Date): Promise<CheckoutSessionRecord | null>;
  countForUser(userId: string): Promise<number>;
  insert(session: CheckoutSessionRecord): Promise<void>;
  markStatus(id: string, status: 'complete' | 'expired'): Promise<void>;
  /** The id of the user who opened the session, if it is one of ours. */
  userOf(sessionId: string): Promise<string | null>;
}

export interface SubscriptionsRepository {
  find(id: string): Promise<SubscriptionState | null>;
  save(state: SubscriptionState): Promise<void>;
  /**
   * Applies a snapshot from an event created at `created` (unix seconds) in one statement, only
   * when the stored state of the same customer is strictly older than the event and was not
   * re-read from the provider since; a past_due snapshot keeps the first failure time stored.
   * False when nothing was applied: no stored state, or one the caller must decide about.
   */
  applyIfNewer(snapshot: ProviderSubscription, created: number): Promise<boolean>;
}

export interface WebhookEventRecord {
  id: string;
  type: string;
  livemode: boolean;
  outcome: 'processed' | 'ignored';
  created: number;
}

export interface WebhookEventsRepository {
  isRecorded(id: string): Promise<boolean>;
}

export interface WebhookFailuresRepository {
  record(failure: { eventId: string; type: string; error: string }): Promise<void>;
}

export interface Repositories {
  users: UsersRepository;
  checkoutSessions: CheckoutSessionsRepository;
  subscriptions: SubscriptionsRepository;
  webhookEvents: WebhookEventsRepository;
  webhookFailures: WebhookFailuresRepository;
}

export interface Store extends Repositories {
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  /**
   * The two phases of exactly-once, in one transaction: `handle`, then the event's record, then
   * commit. Transactions for one event id take turns, across instances. False, with nothing
   * run, when the event is recorded already (a redelivery, or another delivery's transaction
   * committed it first); a committed record is answered without waiting for any turn.
   */
  handleThenRecord(record: WebhookEventRecord, handle: (tx: Repositories) => Promise<void>): Promise<boolean>;
}

/** A hosted checkout session as the payment provider reports it. */
export interface ProviderCheckoutSession {
  id: string;
  url: string;
  status: 'open' | 'complete' | 'expired';
  expiresAt: Date;
}

/** A subscription as the payment provider reports it (for re-reads when event order is unclear). */
export interface ProviderSubscription {
  id: string;
  customerId: string;
  status: SubscriptionStatus;
  priceId: string | null;
  cancelAtPeriodEnd: boolean;
  currentPeriodEnd: Date | null;
  createdAt: Date;
  metadataUserId: string | null;
}

export interface NewCheckoutSession {
  customerId: string;
  priceId: string;
  userId: string;
  successUrl: string;
  cancelUrl: string;
}

/** The payment provider. Failures surface as DomainError('payments_unavailable'). */
export interface PaymentsProvider {
  createCustomer(input: { userId: string; email: string }, idempotencyKey: string): Promise<string>;
  createCheckoutSession(input: NewCheckoutSession, idempotencyKey: string): Promise<ProviderCheckoutSession>;
  retrieveCheckoutSession(id: string): Promise<ProviderCheckoutSession>;
  /** null when the provider does not know the subscription. */
  retrieveSubscription(id: string): Promise<ProviderSubscription | null>;
  /** Every subscription of the customer, in any status (ended ones included), newest first. */
  listSubscriptions(customerId: string): Promise<ProviderSubscription[]>;
  /** Events whose delivery to our endpoint has not succeeded yet, oldest first. */
  undeliveredEvents(): Promise<PaymentEvent[]>;
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

export interface WebhookVerifier {
  /** Checks the signature over the raw bytes and parses the event, or throws DomainError('invalid_signature'). */
  verify(rawBody: Buffer, signatureHeader: string | undefined): PaymentEvent;
}

/** What the domain reports for operators to watch; the adapter decides how (Prometheus). */
export interface Metrics {
  webhookEvent(type: string, outcome: 'processed' | 'duplicate' | 'ignored' | 'failed', lagSeconds: number | null): void;
  checkoutSession(result: 'created' | 'reused'): void;
}
