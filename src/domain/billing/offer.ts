// What the next checkout sells a user (or an organisation, with its own default plan), all chosen on the server, never by the request: the plan
// (the user's, else the default), a trial when the plan has trial days and the user never had a
// subscription, however it became known (users.first_subscription_at, set by the database whenever
// a subscription is stored for the user), promotion codes, automatic tax.
import type { BillingAccount } from '../model/accounts.ts';
import type { CheckoutOffer } from '../model/checkout.ts';

export interface OfferSettings {
  /** Tier name -> price id. */
  prices: ReadonlyMap<string, string>;
  defaultPlan: string;
  /** Tier name -> days of trial; a tier missing has none. */
  trialDays: ReadonlyMap<string, number>;
  trialRequiresCard: boolean;
  allowPromotionCodes: boolean;
  automaticTax: boolean;
}

/** The plan the user's next checkout sells: the user's own, or the default when it has none we sell. */
export function planOf(user: Pick<BillingAccount, 'plan'>, settings: OfferSettings): string {
  return user.plan !== null && settings.prices.has(user.plan) ? user.plan : settings.defaultPlan;
}

/** Days of trial the user's next checkout carries; null when none (one trial per user, ever). */
export function trialDaysOf(
  user: Pick<BillingAccount, 'plan' | 'firstSubscriptionAt'>,
  settings: OfferSettings,
): number | null {
  if (user.firstSubscriptionAt !== null) return null;
  return settings.trialDays.get(planOf(user, settings)) ?? null;
}

export function offerFor(
  user: Pick<BillingAccount, 'plan' | 'firstSubscriptionAt'>,
  settings: OfferSettings,
): CheckoutOffer {
  return {
    trialDays: trialDaysOf(user, settings),
    trialRequiresCard: settings.trialRequiresCard,
    allowPromotionCodes: settings.allowPromotionCodes,
    automaticTax: settings.automaticTax,
  };
}
