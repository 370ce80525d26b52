// Whose credits a request is about. A person's token: the organisation it names when organisations
// are on and it names one, else the user (members share their organisation's balance; a user's own
// is separate). The application's backend: the subject its request names, made on first sight.
import {
  organizationSubject,
  userSubject,
  type BillingSubject,
} from '../billing/billing-subject.ts';
import { tierOf, type TierPolicy } from '../billing/tier.ts';
import { DomainError } from '../errors.ts';
import type { Organization, User } from '../model/accounts.ts';
import type { OrganizationClaim, Principal } from '../model/callers.ts';
import type { Members } from '../organizations/members.ts';
import type { Store } from '../ports/store.ts';
import type { CreditHolder } from './credit-changes.ts';

/** A subject as a backend's request names it. */
export interface NamedHolder {
  type: 'user' | 'organization';
  idp_id: string;
}

export interface HolderSettings {
  /** The issuer organisations are keyed by; null: organisations are off. */
  organizationIssuer: string | null;
  defaultPlan: string;
}

/** A caller's credits: whose, and as a billing subject (for a pack's checkout). */
export interface CallerCredits {
  holder: CreditHolder;
  subject: BillingSubject;
  /** The role the token gives in the organisation, when the holder is one. */
  role: Extract<OrganizationClaim, { kind: 'one' }>['role'] | null;
}

/** A user's or an organisation's credits, with the tier its own subscription gives now. */
export const holderOf = (
  account: User | Organization,
  policy: TierPolicy,
  now: Date,
): CreditHolder => ({
  ...('idpId' in account
    ? { type: 'user' as const, idp_id: account.idpId }
    : { type: 'organization' as const, idp_id: account.idpOrgId }),
  id: account.id,
  tier: tierOf(account.subscription, policy, now),
});

export class CreditHolders {
  constructor(
    private readonly members: Members,
    private readonly store: Pick<Store, 'users' | 'organizations'>,
    private readonly policy: TierPolicy,
    private readonly settings: HolderSettings,
  ) {}

  async ofCaller(principal: Principal, now: Date): Promise<CallerCredits> {
    const { user, organization } = await this.members.caller(principal, now);
    const { defaultPlan } = this.settings;
    if (organization === null)
      return {
        holder: holderOf(user, this.policy, now),
        subject: userSubject(user, defaultPlan),
        role: null,
      };
    const named = principal.organization as Extract<OrganizationClaim, { kind: 'one' }>;
    return {
      holder: holderOf(organization, this.policy, now),
      subject: organizationSubject(organization, { defaultPlan, quantity: 1 }),
      role: named.role,
    };
  }

  async named({ type, idp_id }: NamedHolder, now: Date): Promise<CreditHolder> {
    if (type === 'user')
      return holderOf(await this.store.users.ensureByIdpId(idp_id), this.policy, now);
    const issuer = this.settings.organizationIssuer;
    if (issuer === null)
      throw new DomainError('invalid_field', 'Organisations are not enabled on this service', {
        field: 'subject.type',
        type: 'organizations_off',
        input: type,
      });
    return holderOf(await this.store.organizations.upsert(issuer, idp_id), this.policy, now);
  }
}
