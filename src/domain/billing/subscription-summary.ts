// GET /billing/subscription: the one answer a front end needs to decide what to show and what to
// allow. The tier (the same function as the profile and the checkout guard), the plan the next
// checkout sells and whether it would carry a trial, the tier's entitlements (so a past_due user
// in grace keeps them, and loses them with the tier), and the subscription the tier comes from.
// A token naming an organisation adds where the tier comes from (tier_source): the organisation's
// subscription or the user's own; `subscription`, `plan` and `trial_eligible` stay the user's own.
import type { BillingAccount } from '../model/accounts.ts';
import type { PendingChange, SubscriptionState } from '../model/subscriptions.ts';
import type { Principal } from '../model/callers.ts';
import type { PendingChangesRepository } from '../ports/pending-changes.ts';
import { pendingChangeOf } from './pending-change.ts';
import type { Members } from '../organizations/members.ts';
import { entitlementsOf, type EntitlementTable } from './entitlements.ts';
import { planOf, trialDaysOf, type OfferSettings } from './offer.ts';
import {
  effectiveTier,
  scheduledEnd,
  tierOfPrice,
  type TierPolicy,
  type TierSource,
} from './tier.ts';

export interface SubscriptionDetails {
  status: string;
  /** The tier name of its price; null for a price not in BILLING_PRICES. */
  plan: string | null;
  /** The interval BILLING_PRICES gives its price; null for a price not in it. */
  interval: 'month' | 'year' | null;
  trial_end: Date | null;
  current_period_end: Date | null;
  /** When it is scheduled to end, either of the provider's ways; null when it is not. */
  cancel_at: Date | null;
  /** Whether that end is the end of the current period. */
  cancel_at_period_end: boolean;
  /** The change its schedule makes later (a downgrade at the period's end); null when none. */
  pending_change: {
    plan: string | null;
    interval: 'month' | 'year' | null;
    effective_at: Date;
  } | null;
}

export interface SubscriptionSummary {
  tier: string;
  /** Present when the token names an organisation. */
  tier_source?: TierSource;
  plan: string;
  trial_eligible: boolean;
  features: string[];
  limits: Record<string, number | null>;
  subscription: SubscriptionDetails | null;
}

export interface SummarySettings extends OfferSettings {
  entitlements: EntitlementTable;
  /** Every price of BILLING_PRICES with its interval. */
  catalog: readonly { price: string; interval: 'month' | 'year' }[];
}

function details(
  subscription: SubscriptionState,
  pending: PendingChange | null,
  policy: TierPolicy,
  { catalog }: SummarySettings,
): SubscriptionDetails {
  const end = scheduledEnd(subscription);
  const periodEnd = subscription.currentPeriodEnd;
  const intervalOf = (priceId: string | null) =>
    catalog.find(({ price }) => price === priceId)?.interval ?? null;
  return {
    status: subscription.status,
    plan: tierOfPrice(subscription.priceId, policy),
    interval: intervalOf(subscription.priceId),
    trial_end: subscription.trialEnd,
    current_period_end: periodEnd,
    cancel_at: end,
    cancel_at_period_end:
      end !== null && periodEnd !== null && end.getTime() === periodEnd.getTime(),
    pending_change:
      pending === null
        ? null
        : {
            plan: tierOfPrice(pending.priceId, policy),
            interval: intervalOf(pending.priceId),
            effective_at: pending.effectiveAt,
          },
  };
}

/**
 * A billing account (a user's or an organisation's, with its own default plan in `settings`) at
 * `tier`: the plan its next checkout sells, whether it would carry a trial, the tier's
 * entitlements and the account's subscription.
 */
export function toSummary(
  account: BillingAccount,
  pending: PendingChange | null,
  tier: string,
  policy: TierPolicy,
  settings: SummarySettings,
): SubscriptionSummary {
  const { features, limits } = entitlementsOf(tier, settings.entitlements);
  return {
    tier,
    plan: planOf(account, settings),
    trial_eligible: trialDaysOf(account, settings) !== null,
    features: [...features],
    limits: { ...limits },
    subscription:
      account.subscription === null
        ? null
        : details(account.subscription, pending, policy, settings),
  };
}

export class SubscriptionSummaryService {
  constructor(
    private readonly members: Members,
    private readonly pendingChanges: Pick<PendingChangesRepository, 'of'>,
    private readonly policy: TierPolicy,
    private readonly settings: SummarySettings,
  ) {}

  /** Creates the profile on first access, as users/me does. */
  async summary(principal: Principal, now = new Date()): Promise<SubscriptionSummary> {
    const { user, organization } = await this.members.caller(principal);
    const { tier, source } = effectiveTier(
      user.subscription,
      organization?.subscription ?? null,
      this.policy,
      now,
    );
    const pending = await pendingChangeOf(this.pendingChanges, user, now);
    const summary = toSummary(user, pending, tier, this.policy, this.settings);
    if (principal.organization === null) return summary;
    const { tier: at, ...rest } = summary;
    return { tier: at, tier_source: source, ...rest };
  }
}
