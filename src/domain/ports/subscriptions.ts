// Subscriptions as stored, each written only over an older state (the ordering guard).
import type { SubjectRef } from '../model/callers.ts';
import type { SubscriptionState } from '../model/subscriptions.ts';

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
  /** The subjects other than `except` holding stored subscriptions of the customer. */
  holdersOf(customerId: string, except: SubjectRef): Promise<SubjectRef[]>;
  /** Stores a subscription seen for the first time; false when another writer stored it first. */
  insert(state: Omit<SubscriptionState, 'revision'>): Promise<boolean>;
  /** Overwrites a stored state (found for update in the same transaction) and bumps its revision. */
  update(state: Omit<SubscriptionState, 'revision'>): Promise<void>;
  /**
   * A conditional write, in one statement: overwrites the provider's terms of a stored
   * subscription of the same customer (its user kept) only while its stored `asOf` is below
   * `state.asOf`, and bumps its revision; a failure time already stored is kept while
   * `state.paymentFailedAt` is set. Says what it replaced and what it wrote; otherwise writes
   * nothing and says the stored `asOf` (null: none stored), for the caller to decide.
   */
  updateIfAsOfBelow(
    state: Omit<SubscriptionState, 'revision' | 'owner'>,
  ): Promise<ConditionalWrite>;
}

export type ConditionalWrite =
  | { written: true; before: SubscriptionState; after: SubscriptionState }
  | { written: false; storedAsOf: number | null };
