// Who is calling and for which organisation: the caller's user, and the organisation their token
// names, seen for the first time (one row however many first requests race, on any instance) and
// with the caller recorded as a member. A token naming no organisation costs nothing more than the
// user's own read; a known member of a known organisation one more read, sent beside it, and a
// write at most once an hour (or when they come back after the seat window).
import type { Organization, User } from '../model/accounts.ts';
import type { Principal } from '../model/callers.ts';
import type { Store } from '../ports/store.ts';

/** A member seen less than this ago is not written again: the seat window is counted in days. */
export const MEMBER_REFRESH_MS = 3_600_000;

export interface MembersSettings {
  /** The issuer organisations are keyed by. */
  issuer: string;
  /** Days a member counts as active. */
  activeDays: number;
  /** Whether a new (or returning) member changes the organisation's seats. */
  countsSeats: boolean;
}

export interface Caller {
  user: User;
  /** The organisation the token names; null when it names none, or several. */
  organization: Organization | null;
}

export class Members {
  constructor(
    private readonly store: Pick<Store, 'users' | 'organizations'>,
    /** Null: organisations are off. */
    private readonly settings: MembersSettings | null,
  ) {}

  async caller(principal: Principal, now = new Date()): Promise<Caller> {
    const named = principal.organization;
    if (this.settings === null || named === null || named.kind !== 'one')
      return { user: await this.upsertUser(principal), organization: null };
    const { issuer } = this.settings;
    const [user, seen] = await Promise.all([
      this.upsertUser(principal),
      this.store.organizations.findSeenBy(issuer, named.idpOrgId, principal.idpId),
    ]);
    const organization =
      seen?.organization ?? (await this.store.organizations.upsert(issuer, named.idpOrgId));
    const seenAt = seen?.memberSeenAt ?? null;
    if (seenAt === null || now.getTime() - seenAt.getTime() >= MEMBER_REFRESH_MS)
      await this.store.organizations.recordMember(organization.id, user.id, {
        refreshAfterMs: MEMBER_REFRESH_MS,
        activeDays: this.settings.activeDays,
        countsSeats: this.settings.countsSeats,
      });
    return { user, organization };
  }

  private upsertUser(principal: Principal): Promise<User> {
    return this.store.users.upsertByIdpId(principal.idpId, principal.email);
  }
}
