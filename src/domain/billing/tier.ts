// The one function from a subscription to a tier, used by the profile, the checkout guard and
// the webhook handlers alike, so they can never disagree.
import type { SubscriptionState, SubscriptionStatus } from '../model/subscriptions.ts';

export const FREE_TIER = 'free';
const DAY_MS = 86_400_000;

export interface TierPolicy {
  /** Price id -> tier name. */
  tierByPrice: ReadonlyMap<string, string>;
  graceDays: number;
}

type Billing = Pick<
  SubscriptionState,
  'status' | 'priceId' | 'cancelAtPeriodEnd' | 'cancelAt' | 'currentPeriodEnd' | 'paymentFailedAt'
>;
type Schedule = Pick<Billing, 'cancelAt' | 'cancelAtPeriodEnd' | 'currentPeriodEnd'>;

/** The tier a price gives: its name in BILLING_PRICES, or null for a price we do not sell. */
export function tierOfPrice(priceId: string | null, policy: TierPolicy): string | null {
  return (priceId !== null && policy.tierByPrice.get(priceId)) || null;
}

function paidTier(subscription: Billing, policy: TierPolicy): string {
  return tierOfPrice(subscription.priceId, policy) ?? FREE_TIER;
}

/**
 * When the subscription is scheduled to end, either of Stripe's ways: `cancel_at` (the flexible
 * billing mode's, cancel_at_period_end staying false), or the period's end with
 * cancel_at_period_end (the classic one); the earlier when both say so; null when neither does.
 */
export function scheduledEnd(subscription: Schedule): Date | null {
  const atPeriodEnd = subscription.cancelAtPeriodEnd ? subscription.currentPeriodEnd : null;
  if (subscription.cancelAt === null) return atPeriodEnd;
  if (atPeriodEnd === null) return subscription.cancelAt;
  return subscription.cancelAt < atPeriodEnd ? subscription.cancelAt : atPeriodEnd;
}

/** Scheduled to end and the time has come: over, even if the deletion event is late or lost. */
function scheduledEndPassed(subscription: Schedule, now: Date): boolean {
  const end = scheduledEnd(subscription);
  return end !== null && end <= now;
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
      // Scheduled to end (either way): paid until then, even if the deletion event is late.
      return scheduledEndPassed(subscription, now) ? FREE_TIER : paidTier(subscription, policy);
    case 'past_due':
      return now < graceEnd(subscription, policy, now) && !scheduledEndPassed(subscription, now)
        ? paidTier(subscription, policy)
        : FREE_TIER;
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

/** Statuses of a subscription that is live: the user has (or is paying for) it. */
export function isLive(status: SubscriptionStatus): boolean {
  return status === 'active' || status === 'trialing' || status === 'past_due';
}

/**
 * Whether the subscription blocks a second checkout: it is live, and not past the end it was
 * scheduled for (then it is over, as the tier says, even before its deletion event arrives).
 */
export function blocksNewCheckout(subscription: Billing | null, now = new Date()): boolean {
  return (
    subscription !== null && isLive(subscription.status) && !scheduledEndPassed(subscription, now)
  );
}

/** Where a member's tier comes from: their organisation's subscription, their own, or neither (free). */
export type TierSource = 'organization' | 'user' | null;

/** A tier's place among those for sale: free lowest, then the tiers in the order of BILLING_PRICES. */
export function tierRank(tier: string, policy: TierPolicy): number {
  return [...new Set(policy.tierByPrice.values())].indexOf(tier);
}

/**
 * The tier a member gets: the higher of their own subscription's and their organisation's (null
 * when the token names none), and where it comes from. The organisation's wins a tie.
 */
export function effectiveTier(
  own: Billing | null,
  organization: Billing | null,
  policy: TierPolicy,
  now = new Date(),
): { tier: string; source: TierSource } {
  const mine = tierOf(own, policy, now);
  const theirs = tierOf(organization, policy, now);
  if (theirs !== FREE_TIER && tierRank(theirs, policy) >= tierRank(mine, policy))
    return { tier: theirs, source: 'organization' };
  return { tier: mine, source: mine === FREE_TIER ? null : 'user' };
}
