// A personal checkout is refused while the caller's organisation (the one the token names) already
// gives them the tier it sells or a higher one: paying for it would buy nothing.
import { DomainError } from '../errors.ts';
import type { Organization } from '../model/accounts.ts';
import { tierOf, tierRank, type TierPolicy } from './tier.ts';

export function refuseIfOrganizationCovers(
  sold: string,
  organization: Organization | null,
  policy: TierPolicy,
  now: Date,
): void {
  if (organization === null) return;
  const theirs = tierOf(organization.subscription, policy, now);
  if (tierRank(theirs, policy) >= tierRank(sold, policy))
    throw new DomainError(
      'subscription_active',
      `You already have the ${theirs} tier through your organisation`,
    );
}
