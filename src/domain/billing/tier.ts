// The one function from a subscription to a tier, used by the profile, the checkout guard and
// the webhook handlers alike, so they can never disagree.
import type { SubscriptionState, SubscriptionStatus } from '../model.ts';

export const FREE_TIER = 'free';
const DAY_MS = 86_400_000;

export interface TierPolicy {
  /** Price id -> tier name. */
  tierByPrice: ReadonlyMap<string, string>;
  graceDays: number;
}

type Billing = Pick<
  SubscriptionState,
  'status' | 'priceId' | 'cancelAtPeriodEnd' | 'currentPeriodEnd' | 'paymentFailedAt'
>;

function paidTier(subscription: Billing, policy: TierPolicy): string {
  return (subscription.priceId && policy.tierByPrice.get(subscription.priceId)) || FREE_TIER;
}

function periodOver(subscription: Billing, now: Date): boolean {
  return subscription.currentPeriodEnd !== null && subscription.currentPeriodEnd <= now;
}

/** When a past_due subscription's grace period ends: BILLING_GRACE_DAYS after the payment failed. */
export function graceEnd(
  subscription: Pick<Billing, 'paymentFailedAt'>,
  policy: TierPolicy,
  now = new Date(),
): Date {
  return new Date(
    (subscription.paymentFailedAt?.getTime() ?? now.getTime()) + policy.graceDays * DAY_MS,
  );
}

export function tierOf(subscription: Billing | null, policy: TierPolicy, now = new Date()): string {
  if (subscription === null) return FREE_TIER;
  switch (subscription.status) {
    case 'active':
    case 'trialing':
      // Canceled at period end: paid until the period ends, even if the deletion event is late.
      return subscription.cancelAtPeriodEnd && periodOver(subscription, now)
        ? FREE_TIER
        : paidTier(subscription, policy);
    case 'past_due':
      return now < graceEnd(subscription, policy, now) ? paidTier(subscription, policy) : FREE_TIER;
    case 'incomplete':
    case 'incomplete_expired':
    case 'unpaid':
    case 'canceled':
    case 'paused':
      return FREE_TIER;
    default:
      // A status Stripe adds later: not paid until we know better (the compiler flags it here).
      return unknownStatus(subscription.status);
  }
}

function unknownStatus(status: never): string {
  void status;
  return FREE_TIER;
}

/** Statuses that block a second checkout: the user already has (or is paying for) a subscription. */
export function blocksNewCheckout(status: SubscriptionStatus): boolean {
  return status === 'active' || status === 'trialing' || status === 'past_due';
}
