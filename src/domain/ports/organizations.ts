// Organisations, known by their issuer's id, and who is a member of each.
import type { Organization } from '../model/accounts.ts';

/** An organisation a member's token names, with when that member was last recorded there. */
export interface SeenOrganization {
  organization: Organization;
  /** Null: the member is not recorded yet (or is not a user yet). */
  memberSeenAt: Date | null;
}

export interface OrganizationsRepository {
  /** Records when the organisation first subscribed, unless one is stored already. */
  markSubscribed(id: string, at: Date): Promise<void>;
  /** The organisation, and when the user with `memberIdpId` was last recorded as its member; one read. */
  findSeenBy(
    issuer: string,
    idpOrgId: string,
    memberIdpId: string,
  ): Promise<SeenOrganization | null>;
  /** Creates it on first sight; concurrent first sights on any instance make one. */
  upsert(issuer: string, idpOrgId: string): Promise<Organization>;
  findById(id: string): Promise<Organization | null>;
  findByIdpOrgId(issuer: string, idpOrgId: string): Promise<Organization | null>;
  findByCustomerId(customerId: string): Promise<Organization | null>;
  /** As UsersRepository.linkCustomer, for an organisation; never a customer a user holds. */
  linkCustomer(organizationId: string, customerId: string): Promise<string | null>;
  setPlan(issuer: string, idpOrgId: string, plan: string): Promise<Organization | null>;
  /**
   * Records the user as a member seen now, in one statement. A member seen less than
   * `refreshAfterMs` ago is left as it is; a new member, or one back after `activeDays` away,
   * marks the organisation's seats as changed when `countsSeats`. Answers what it found.
   */
  recordMember(
    organizationId: string,
    userId: string,
    options: { refreshAfterMs: number; activeDays: number; countsSeats: boolean },
  ): Promise<'new' | 'returning' | 'seen' | 'recent'>;
  /** Members seen within the last `activeDays`. */
  countActiveMembers(organizationId: string, activeDays: number): Promise<number>;
}
