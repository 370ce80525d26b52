// The ordering rule, in one place. A stored subscription is the provider's state as of `asOf`, a
// second on the provider's clock; what the provider says as of another second (an event's
// `created`, a read's or a listing's `readAt`) is older (contained in what is stored), newer (it
// replaces it), or of the same second (a tie: only a read can settle it). Every writer of a
// subscription decides with `ordering`; the store's conditional write implements its `newer`.
import type { ProviderSubscription, SubscriptionState } from '../model/subscriptions.ts';

export type Ordering = 'older' | 'same second' | 'newer';

/** Where what the provider said as of `second` stands against a state stored as of `storedAsOf`. */
export function ordering(second: number, storedAsOf: number): Ordering {
  return second < storedAsOf ? 'older' : second > storedAsOf ? 'newer' : 'same second';
}

const LIFECYCLE_RANK: Record<string, number> = {
  incomplete: 0,
  trialing: 1,
  active: 2,
  past_due: 3,
  paused: 4,
  unpaid: 4,
  incomplete_expired: 5,
  canceled: 5,
};

/** Set to end, either of the provider's ways (cancel_at, or cancel_at_period_end). */
const scheduled = (s: ProviderSubscription | SubscriptionState): boolean =>
  s.cancelAtPeriodEnd || s.cancelAt !== null;

/**
 * The tie-break when no read can settle a same-second tie (the provider does not know the
 * subscription): a fixed order, so every delivery order ends alike.
 */
export function laterInLifecycle(a: ProviderSubscription, b: SubscriptionState): boolean {
  const rank = (LIFECYCLE_RANK[a.status] ?? 0) - (LIFECYCLE_RANK[b.status] ?? 0);
  return rank !== 0 ? rank > 0 : scheduled(a) && !scheduled(b);
}
