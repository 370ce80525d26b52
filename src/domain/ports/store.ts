// The database, as the domain needs it: repositories, bound to a transaction when one is asked for.
import type { CheckoutSessionRecord, SubscriptionState, User } from '../model.ts';

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
  /** The stored state, without a lock (to decide what to read from the provider before a transaction). */
  find(id: string): Promise<SubscriptionState | null>;
  /** The stored state, locked until the transaction ends: two writers of one subscription take turns. */
  findForUpdate(id: string): Promise<SubscriptionState | null>;
  /** The stored states of these subscriptions (those stored), locked in the order of their ids when `lock`. */
  findMany(ids: readonly string[], options?: { lock?: boolean }): Promise<SubscriptionState[]>;
  /**
   * Records that the provider confirmed these stored states (found for update in the same
   * transaction) as of `asOf`: their `asOf` moves up to it, and their revision is bumped.
   */
  confirm(ids: readonly string[], asOf: number): Promise<void>;
  /** The users other than `exceptUserId` holding stored subscriptions of the customer. */
  holdersOf(customerId: string, exceptUserId: string): Promise<string[]>;
  /** Stores a subscription seen for the first time; false when another writer stored it first. */
  insert(state: Omit<SubscriptionState, 'revision'>): Promise<boolean>;
  /** Overwrites a stored state (found for update in the same transaction) and bumps its revision. */
  update(state: Omit<SubscriptionState, 'revision'>): Promise<void>;
  /**
   * A conditional write, in one statement: overwrites the provider's terms of a stored
   * subscription of the same customer (its user kept) only while its stored `asOf` is below
   * `state.asOf`, and bumps its revision; a failure time already stored is kept while
   * `state.paymentFailedAt` is set. Otherwise writes nothing and says the stored `asOf` (null:
   * none stored), for the caller to decide.
   */
  updateIfAsOfBelow(
    state: Omit<SubscriptionState, 'revision' | 'userId'>,
  ): Promise<ConditionalWrite>;
}

export type ConditionalWrite = { written: true } | { written: false; storedAsOf: number | null };

export interface Repositories {
  users: UsersRepository;
  checkoutSessions: CheckoutSessionsRepository;
  subscriptions: SubscriptionsRepository;
}

export interface Store extends Repositories {
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
}
