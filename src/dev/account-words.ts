// Development only: a user's billing state said in words on `/billing`, including the cases
// where the tier and the provider's status seem to disagree (a failed renewal keeps the tier for
// the grace period; a cancellation scheduled either of Stripe's ways keeps it until then).
import {
  blocksNewCheckout,
  FREE_TIER,
  graceEnd,
  scheduledEnd,
  tierOf,
  type TierPolicy,
} from '../domain/billing/tier.ts';
import type { User } from '../domain/model.ts';

export interface AccountPolicy extends TierPolicy {
  /** Whether a trial's checkout takes a card (BILLING_TRIAL_REQUIRES_CARD). */
  trialRequiresCard: boolean;
}

export interface AccountView {
  tier: string;
  /** Sentences for a person, plain text. */
  status: string[];
  canCheckout: boolean;
  canManage: boolean;
}

const when = (date: Date | null): string =>
  date === null
    ? 'the end of the period'
    : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * What happens when a trial ends, from what the checkout asked for: with BILLING_TRIAL_REQUIRES_CARD
 * (the default) it took a card, which the first invoice charges; without, the service cannot know
 * whether a card has been added since, so it says what happens either way (the checkout's
 * trial_settings cancel a trial that ends without one). The setting read is today's: a trial sold
 * before it changed is worded by the new one.
 */
export function trialWords(plan: string, end: Date | null, policy: AccountPolicy): string[] {
  const runs = `Your ${plan} trial runs until ${when(end)}.`;
  if (policy.trialRequiresCard)
    return [
      runs,
      `Then the ${plan} subscription starts and the card given at checkout is charged, unless you cancel before.`,
    ];
  return [
    runs,
    `The checkout asked for no card. If one is on file by then (add it in the billing portal), the ${plan} subscription starts and the card is charged; without one the trial is canceled and you are back on ${FREE_TIER}.`,
  ];
}

function statusWords(user: User, policy: AccountPolicy, tier: string, now: Date): string[] {
  const subscription = user.subscription;
  if (subscription === null) return ['You have no subscription yet.'];
  const plan =
    (subscription.priceId && policy.tierByPrice.get(subscription.priceId)) ||
    'a plan this service does not sell';
  const periodEnd = when(subscription.currentPeriodEnd);
  switch (subscription.status) {
    case 'active':
    case 'trialing': {
      const end = scheduledEnd(subscription);
      if (end !== null && end <= now)
        return [`Your ${plan} subscription ended on ${when(end)}: you are on ${FREE_TIER}.`];
      if (end !== null)
        return [
          `Your ${plan} subscription is canceled ${end.getTime() === subscription.currentPeriodEnd?.getTime() ? 'at the end of its period' : `as of ${when(end)}`}: you keep ${tier} until ${when(end)}, then ${FREE_TIER}.`,
        ];
      if (subscription.status === 'trialing')
        return trialWords(plan, subscription.trialEnd ?? subscription.currentPeriodEnd, policy);
      return [`Your ${plan} subscription is active until ${periodEnd}, then renews.`];
    }
    case 'past_due': {
      const failedAt = subscription.paymentFailedAt;
      const failed = `The last payment for your ${plan} subscription failed${failedAt === null ? '' : ` on ${when(failedAt)}`}.`;
      const ends = when(graceEnd(subscription, policy, now));
      if (tier !== FREE_TIER)
        return [
          failed,
          `You keep ${tier} during the grace period of ${policy.graceDays} days, until ${ends}; after that ${FREE_TIER}, unless a payment goes through. The provider retries it; update your card in the billing portal.`,
        ];
      return [
        failed,
        `The grace period ended on ${ends}: you are on ${FREE_TIER} until a payment goes through. Update your card in the billing portal.`,
      ];
    }
    case 'canceled':
      return [`Your ${plan} subscription was canceled.`];
    default:
      return [
        `Your ${plan} subscription is ${subscription.status.replace('_', ' ')}: it gives no paid tier.`,
      ];
  }
}

export function accountView(user: User, policy: AccountPolicy, now = new Date()): AccountView {
  const tier = tierOf(user.subscription, policy, now);
  return {
    tier,
    status: statusWords(user, policy, tier, now),
    canCheckout: !blocksNewCheckout(user.subscription, now),
    canManage: user.paymentsCustomerId !== null,
  };
}
