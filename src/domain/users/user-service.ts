// Profiles: the authenticated principal's user, created on first access.
import { tierOf, type TierPolicy } from '../billing/tier.ts';
import type { Principal, User } from '../model.ts';
import type { Store } from '../ports/store.ts';

export interface Profile {
  id: string;
  idp_id: string;
  email: string;
  tier: string;
  created_at: string;
}

export function toProfile(user: User, policy: TierPolicy, now = new Date()): Profile {
  return {
    id: user.id,
    idp_id: user.idpId,
    email: user.email,
    tier: tierOf(user.subscription, policy, now),
    created_at: user.createdAt.toISOString().replace('Z', '+00:00'),
  };
}

export class UserService {
  constructor(
    private readonly store: Store,
    private readonly policy: TierPolicy,
  ) {}

  /** Get or create: concurrent first calls all get the same single user. */
  async currentUser(principal: Principal): Promise<User> {
    return this.store.users.upsertByIdpId(principal.idpId, principal.email);
  }

  async profile(principal: Principal): Promise<Profile> {
    return toProfile(await this.currentUser(principal), this.policy);
  }
}
