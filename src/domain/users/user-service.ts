// Profiles: the authenticated principal's user, created on first access, with the tier they have
// now: their own, or their organisation's when the token names one whose tier is at least theirs.
import { effectiveTier, type TierPolicy } from '../billing/tier.ts';
import type { Principal } from '../model/callers.ts';
import type { User } from '../model/accounts.ts';
import type { Members } from '../organizations/members.ts';

export interface Profile {
  id: string;
  idpId: string;
  email: string;
  tier: string;
  createdAt: Date;
}

export function toProfile(
  user: User,
  policy: TierPolicy,
  now = new Date(),
  organization: Pick<User, 'subscription'> | null = null,
): Profile {
  return {
    id: user.id,
    idpId: user.idpId,
    email: user.email,
    tier: effectiveTier(user.subscription, organization?.subscription ?? null, policy, now).tier,
    createdAt: user.createdAt,
  };
}

export class UserService {
  constructor(
    private readonly members: Members,
    private readonly policy: TierPolicy,
  ) {}

  /** Get or create: concurrent first calls all get the same single user. */
  async currentUser(principal: Principal): Promise<User> {
    return (await this.members.caller(principal)).user;
  }

  async profile(principal: Principal): Promise<Profile> {
    const { user, organization } = await this.members.caller(principal);
    return toProfile(user, this.policy, new Date(), organization);
  }
}
