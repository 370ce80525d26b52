// The database, as the domain needs it: repositories, bound to a transaction when one is asked for.
import type { CheckoutSessionRecord, ProviderSubscription, SubscriptionState, User, WebhookEventRecord } from '../model.ts';

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
