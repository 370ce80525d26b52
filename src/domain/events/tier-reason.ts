// Why a subject's tier changed, in the words of the `tier.changed` event, told from the tier before
// and after and the subscription that decides the tier now. A transaction that knows its cause (a
// reconciliation, an operator's command) says so instead.
import type { SubscriptionState } from '../model/subscriptions.ts';
import { FREE_TIER, scheduledEnd } from '../billing/tier.ts';

export type TierReason =
  | 'checkout'
  | 'plan_change'
  | 'payment_failed'
  | 'grace_ended'
  | 'canceled'
  | 'scheduled_end'
  | 'paused'
  | 'resumed'
  | 'trial_ended'
  | 'reconciled'
  | 'operator';

/** A cause a transaction states for every change it makes. */
export type TierCause = Extract<TierReason, 'reconciled' | 'operator'>;

export interface TierStep {
  from: string;
  to: string;
  /** The subscription deciding the tier now; null: none. */
  deciding: Omit<SubscriptionState, 'revision'> | null;
  /** Whether that subscription was stored for the first time by this change. */
  firstStored: boolean;
  /** Whether that subscription was in its trial before this change (the write's row before it). */
  wasTrialing: boolean;
}

const passed = (time: Date | null, now: Date) => time !== null && time <= now;

/** Set to end, either of the provider's ways; Stripe keeps both on the subscription it ends. */
const wasScheduled = (s: Omit<SubscriptionState, 'revision'>) =>
  s.cancelAtPeriodEnd || s.cancelAt !== null;

/** Why a paid tier ended (`to` is free). */
function whyEnded(
  subscription: Omit<SubscriptionState, 'revision'> | null,
  now: Date,
  wasTrialing: boolean,
): TierReason {
  if (subscription === null) return 'canceled';
  const trialOver =
    wasTrialing ||
    (passed(subscription.trialEnd, now) &&
      subscription.currentPeriodEnd !== null &&
      subscription.trialEnd!.getTime() >= subscription.currentPeriodEnd.getTime());
  switch (subscription.status) {
    case 'active':
    case 'trialing':
      return 'scheduled_end';
    case 'past_due':
      return passed(scheduledEnd(subscription), now) ? 'scheduled_end' : 'grace_ended';
    case 'paused':
      return trialOver ? 'trial_ended' : 'paused';
    case 'canceled':
      if (wasScheduled(subscription) || passed(scheduledEnd(subscription), now))
        return 'scheduled_end';
      return trialOver ? 'trial_ended' : 'canceled';
    case 'unpaid':
    case 'incomplete':
    case 'incomplete_expired':
      return 'payment_failed';
  }
}

export function tierReason(step: TierStep, cause: TierCause | null, now: Date): TierReason {
  if (cause !== null) return cause;
  if (step.to === FREE_TIER) return whyEnded(step.deciding, now, step.wasTrialing);
  if (step.from !== FREE_TIER) return 'plan_change';
  return step.firstStored ? 'checkout' : 'resumed';
}
