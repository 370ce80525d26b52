// GET /billing/subscription: the one answer a front end needs to decide what to show and what to
// allow. The tier (the same function as the profile and the checkout guard), the plan the next
// checkout sells and whether it would carry a trial, the tier's entitlements (so a past_due user
// in grace keeps them, and loses them with the tier), and the subscription the tier comes from.
import type { Principal, SubscriptionState, User } from '../model.ts';
import type { Store } from '../ports/store.ts';
import { entitlementsOf, type EntitlementTable } from './entitlements.ts';
import { planOf, trialDaysOf, type OfferSettings } from './offer.ts';
import { scheduledEnd, tierOf, tierOfPrice, type TierPolicy } from './tier.ts';

export interface SubscriptionDetails {
  status: string;
  /** The tier name of its price; null for a price not in BILLING_PRICES. */
  plan: string | null;
  trial_end: string | null;
  current_period_end: string | null;
  /** When it is scheduled to end, either of the provider's ways; null when it is not. */
  cancel_at: string | null;
  /** Whether that end is the end of the current period. */
  cancel_at_period_end: boolean;
}

export interface SubscriptionSummary {
  tier: string;
  plan: string;
  trial_eligible: boolean;
  features: string[];
  limits: Record<string, number | null>;
  subscription: SubscriptionDetails | null;
}

export interface SummarySettings extends OfferSettings {
  entitlements: EntitlementTable;
}

/** ISO 8601 with an offset, as the profile's created_at. */
const dateTime = (date: Date | null): string | null =>
  date === null ? null : date.toISOString().replace('Z', '+00:00');

function details(subscription: SubscriptionState, policy: TierPolicy): SubscriptionDetails {
  const end = scheduledEnd(subscription);
  const periodEnd = subscription.currentPeriodEnd;
  return {
    status: subscription.status,
    plan: tierOfPrice(subscription.priceId, policy),
    trial_end: dateTime(subscription.trialEnd),
    current_period_end: dateTime(periodEnd),
    cancel_at: dateTime(end),
    cancel_at_period_end:
      end !== null && periodEnd !== null && end.getTime() === periodEnd.getTime(),
  };
}

export function toSummary(
  user: User,
  policy: TierPolicy,
  settings: SummarySettings,
  now = new Date(),
): SubscriptionSummary {
  const tier = tierOf(user.subscription, policy, now);
  const { features, limits } = entitlementsOf(tier, settings.entitlements);
  return {
    tier,
    plan: planOf(user, settings),
    trial_eligible: trialDaysOf(user, settings) !== null,
    features: [...features],
    limits: { ...limits },
    subscription: user.subscription === null ? null : details(user.subscription, policy),
  };
}

export class SubscriptionSummaryService {
  constructor(
    private readonly store: Store,
    private readonly policy: TierPolicy,
    private readonly settings: SummarySettings,
  ) {}

  /** Creates the profile on first access, as users/me does. */
  async summary(principal: Principal): Promise<SubscriptionSummary> {
    const user = await this.store.users.upsertByIdpId(principal.idpId, principal.email);
    return toSummary(user, this.policy, this.settings);
  }
}
