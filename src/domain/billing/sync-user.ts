// Re-reads one user's subscriptions from the payment provider and stores them, for when the stored
// state is wrong (events lost beyond the provider's retries, a bug): the provider is
// the source of truth. The customer's listing is applied as a reconciliation applies its pages
// (provider-listing.ts): as of the provider's time of the listing, so an event created before it
// is older than what it stored, and a state stored meanwhile from a newer event is kept.
import type { Logger } from '../ports/logger.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { Store } from '../ports/store.ts';
import { UnknownUserError } from './operator-errors.ts';
import { applyCustomerListing } from './provider-listing.ts';
import { tierOf } from './tier.ts';
import type { EventPolicy } from '../events/subject-changes.ts';

export interface SyncUserDeps {
  store: Store;
  payments: PaymentsProvider;
  policy: EventPolicy;
  log: Logger;
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
}

export interface SyncUserResult {
  idpId: string;
  customerId: string | null;
  /** The subscriptions the provider reported, each as `id (status)`. */
  subscriptions: string[];
  tierBefore: string;
  tierAfter: string;
}

export async function syncUser(deps: SyncUserDeps, idpId: string): Promise<SyncUserResult> {
  const clock = deps.now ?? (() => new Date());
  const user = await deps.store.users.findByIdpId(idpId);
  if (user === null) throw new UnknownUserError(idpId);
  const tierBefore = tierOf(user.subscription, deps.policy, clock());
  if (user.paymentsCustomerId === null) {
    // Never checked out: the provider has nothing of this user's to read.
    return { idpId, customerId: null, subscriptions: [], tierBefore, tierAfter: tierBefore };
  }
  const customerId = user.paymentsCustomerId;
  const changes = await applyCustomerListing(deps, customerId, {
    cause: 'operator',
    sleep: deps.sleep,
  });
  const after = await deps.store.users.findById(user.id);
  return {
    idpId,
    customerId,
    subscriptions: changes.map(({ subscription: s }) => `${s.id} (${s.status})`),
    tierBefore,
    tierAfter: tierOf(after?.subscription ?? null, deps.policy, clock()),
  };
}
