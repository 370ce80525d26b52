// The billing of the organisation the caller's token names, and nothing but that one: a path,
// query or body never names an organisation. Any member sees it; only a caller whose token gives a
// manager role may buy or manage it, through the same checkout and portal as a user's. The quantity
// a checkout sells is the seats counted when the session is made, so the first invoice is right
// without waiting for an event.
import type { CheckoutInput } from '../billing/redirect-urls.ts';
import type { CheckoutService } from '../billing/checkout-service.ts';
import { organizationSubject, type BillingSubject } from '../billing/billing-subject.ts';
import type { PortalInput, PortalService } from '../billing/portal-service.ts';
import { pendingChangeOf } from '../billing/pending-change.ts';
import {
  toSummary,
  type SubscriptionSummary,
  type SummarySettings,
} from '../billing/subscription-summary.ts';
import { isLive, tierOf, type TierPolicy } from '../billing/tier.ts';
import { DomainError } from '../errors.ts';
import type { Organization } from '../model/accounts.ts';
import type { OrganizationClaim, Principal } from '../model/callers.ts';
import type { Store } from '../ports/store.ts';
import { desiredSeats, type SeatCounts, type SeatSettings } from '../seats/desired-seats.ts';
import type { Members } from './members.ts';
import { canManage, requireManager } from './roles.ts';

export interface OrganizationBillingSettings extends SummarySettings {
  /** Null: organisations are off. */
  organizations: {
    plan: string;
    managerRoles: readonly string[];
    seats: SeatSettings;
  } | null;
}

export interface OrganizationBillingSummary extends SubscriptionSummary {
  org: { id: string; idp_org_id: string; created_at: Date };
  role: string | string[] | null;
  can_manage: boolean;
  seats: { active: number; reported: number | null; billed: number | null };
}

export interface OrganizationBillingDeps {
  store: Pick<Store, 'organizations' | 'seats' | 'pendingChanges'>;
  members: Members;
  checkout: CheckoutService;
  portal: PortalService;
  policy: TierPolicy;
  settings: OrganizationBillingSettings;
}

type NamedOrganization = Extract<OrganizationClaim, { kind: 'one' }>;

const forbidden = (message: string) => new DomainError('organization_required', message);

export class OrganizationBilling {
  constructor(private readonly deps: OrganizationBillingDeps) {}

  async summary(principal: Principal, now = new Date()): Promise<OrganizationBillingSummary> {
    const named = this.namedOrganization(principal);
    const organization = await this.organizationOf(principal);
    const counts = await this.counts(organization);
    const subscription = organization.subscription;
    const summary = toSummary(
      organization,
      await pendingChangeOf(this.deps.store.pendingChanges, organization, now),
      tierOf(subscription, this.deps.policy, now),
      this.deps.policy,
      this.offerSettings(),
    );
    const { subscription: details, ...rest } = summary;
    return {
      org: {
        id: organization.id,
        idp_org_id: organization.idpOrgId,
        created_at: organization.createdAt,
      },
      role: named.role,
      can_manage: canManage(named.role, this.settings().managerRoles),
      ...rest,
      seats: {
        ...counts,
        billed: subscription !== null && isLive(subscription.status) ? subscription.quantity : null,
      },
      subscription: details,
    };
  }

  async checkout(principal: Principal, input: CheckoutInput, now = new Date()) {
    this.requireManager(principal);
    return this.deps.checkout.open(input, () => this.subjectOf(principal), now);
  }

  async portal(principal: Principal, input: PortalInput) {
    this.requireManager(principal);
    return this.deps.portal.openFor(input, () => this.organizationOf(principal));
  }

  private settings() {
    const organizations = this.deps.settings.organizations;
    if (organizations === null) throw forbidden('Organisations are not enabled on this service');
    return organizations;
  }

  private offerSettings(): SummarySettings {
    return { ...this.deps.settings, defaultPlan: this.settings().plan };
  }

  /** The one organisation the token names, or a 403 that says what to do. */
  private namedOrganization(principal: Principal): NamedOrganization {
    this.settings();
    const named = principal.organization;
    if (named === null)
      throw forbidden(
        'Your token names no organisation: sign in to your organisation to see or manage its billing',
      );
    if (named.kind === 'several')
      throw forbidden(
        'Your token names several organisations: sign in with one organisation to see or manage its billing',
      );
    return named;
  }

  private requireManager(principal: Principal): void {
    requireManager(this.namedOrganization(principal).role, this.settings().managerRoles);
  }

  /** The organisation, seen (and the caller recorded as its member) as on any request naming it. */
  private async organizationOf(principal: Principal): Promise<Organization> {
    this.namedOrganization(principal);
    const { organization } = await this.deps.members.caller(principal);
    return organization!;
  }

  private async counts(organization: Organization): Promise<SeatCounts> {
    const { store } = this.deps;
    const [active, reported] = await Promise.all([
      store.organizations.countActiveMembers(organization.id, this.settings().seats.activeDays),
      store.seats.reported(organization.id),
    ]);
    return { active, reported: reported?.count ?? null };
  }

  private async subjectOf(principal: Principal): Promise<BillingSubject> {
    const organization = await this.organizationOf(principal);
    const { plan, seats } = this.settings();
    return organizationSubject(organization, {
      defaultPlan: plan,
      quantity: desiredSeats(seats, await this.counts(organization)),
    });
  }
}
