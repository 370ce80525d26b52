// Development only: a billing account's state said in words on `/billing`, a person's own or their
// organisation's, including the cases where the tier and the provider's status seem to disagree (a
// failed renewal keeps the tier for the grace period; a cancellation scheduled either of Stripe's
// ways keeps it until then), and the interval it is billed at with a change waiting for the
// period's end.
import type { SubscriptionDetails } from '../domain/billing/subscription-summary.ts';
import {
  blocksNewCheckout,
  FREE_TIER,
  graceEnd,
  scheduledEnd,
  tierOf,
  type TierPolicy,
} from '../domain/billing/tier.ts';
import type { BillingAccount } from '../domain/model/accounts.ts';
import { capitalized, PERSONAL, when, type Voice } from './voice.ts';

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

/**
 * What happens when a trial ends, from what the checkout asked for: with BILLING_TRIAL_REQUIRES_CARD
 * (the default) it took a card, which the first invoice charges; without, the service cannot know
 * whether a card has been added since, so it says what happens either way (the checkout's
 * trial_settings cancel a trial that ends without one). The setting read is today's: a trial sold
 * before it changed is worded by the new one.
 */
export function trialWords(
  plan: string,
  end: Date | null,
  policy: AccountPolicy,
  voice = PERSONAL,
): string[] {
  const runs = `${voice.whose} ${plan} trial runs until ${when(end)}.`;
  if (policy.trialRequiresCard)
    return [
      runs,
      `Then the ${plan} subscription starts and the card given at checkout is charged, unless ${voice.cancels} before.`,
    ];
  return [
    runs,
    `The checkout asked for no card. If one is on file by then (add it in the billing portal), the ${plan} subscription starts and the card is charged; without one the trial is canceled and ${voice.who} are back on ${FREE_TIER}.`,
  ];
}

const INTERVAL_WORDS = { month: 'monthly', year: 'yearly' } as const;

/**
 * How a live subscription is billed and the change its schedule makes at the period's end, as
 * GET /billing/subscription gives them: "Billed yearly." "Switches to pro, monthly, on …".
 */
export function planChangeWords(details: SubscriptionDetails | null): string[] {
  if (details === null || details.status === 'canceled') return [];
  const billed = details.interval === null ? [] : [`Billed ${INTERVAL_WORDS[details.interval]}.`];
  const change = details.pending_change;
  if (change === null) return billed;
  const plan = change.plan ?? 'a plan this service does not sell';
  const interval = change.interval === null ? '' : `, ${INTERVAL_WORDS[change.interval]}`;
  return [...billed, `Switches to ${plan}${interval}, on ${when(change.effective_at)}.`];
}

function statusWords(
  account: BillingAccount,
  policy: AccountPolicy,
  tier: string,
  now: Date,
  voice: Voice,
): string[] {
  const subscription = account.subscription;
  if (subscription === null) return [voice.none];
  const plan =
    (subscription.priceId && policy.tierByPrice.get(subscription.priceId)) ||
    'a plan this service does not sell';
  const periodEnd = when(subscription.currentPeriodEnd);
  switch (subscription.status) {
    case 'active':
    case 'trialing': {
      const end = scheduledEnd(subscription);
      if (end !== null && end <= now)
        return [
          `${voice.whose} ${plan} subscription ended on ${when(end)}: ${voice.who} are on ${FREE_TIER}.`,
        ];
      if (end !== null)
        return [
          `${voice.whose} ${plan} subscription is canceled ${end.getTime() === subscription.currentPeriodEnd?.getTime() ? 'at the end of its period' : `as of ${when(end)}`}: ${voice.who} keep ${tier} until ${when(end)}, then ${FREE_TIER}.`,
        ];
      if (subscription.status === 'trialing')
        return trialWords(
          plan,
          subscription.trialEnd ?? subscription.currentPeriodEnd,
          policy,
          voice,
        );
      return [`${voice.whose} ${plan} subscription is active until ${periodEnd}, then renews.`];
    }
    case 'past_due': {
      const failedAt = subscription.paymentFailedAt;
      const failed = `The last payment for ${voice.whose.toLowerCase()} ${plan} subscription failed${failedAt === null ? '' : ` on ${when(failedAt)}`}.`;
      const ends = when(graceEnd(subscription, policy, now));
      if (tier !== FREE_TIER)
        return [
          failed,
          `${capitalized(voice.who)} keep ${tier} during the grace period of ${policy.graceDays} days, until ${ends}; after that ${FREE_TIER}, unless a payment goes through. The provider retries it; ${voice.updatesCard} in the billing portal.`,
        ];
      return [
        failed,
        `The grace period ended on ${ends}: ${voice.who} are on ${FREE_TIER} until a payment goes through. ${capitalized(voice.updatesCard)} in the billing portal.`,
      ];
    }
    case 'canceled':
      return [`${voice.whose} ${plan} subscription was canceled.`];
    default:
      return [
        `${voice.whose} ${plan} subscription is ${subscription.status.replace('_', ' ')}: it gives no paid tier.`,
      ];
  }
}

export function accountView(
  account: BillingAccount,
  policy: AccountPolicy,
  now = new Date(),
  voice = PERSONAL,
): AccountView {
  const tier = tierOf(account.subscription, policy, now);
  return {
    tier,
    status: statusWords(account, policy, tier, now, voice),
    canCheckout: !blocksNewCheckout(account.subscription, now),
    canManage: account.paymentsCustomerId !== null,
  };
}
