// Adopting a customer made elsewhere (before the service was connected, or in the provider's
// dashboard): links it to a user, then applies its subscriptions as a reconciliation does. Refused,
// with the reason, when either side is linked to someone else or the provider has no such customer.
// Never by e-mail: only an operator's explicit pairing, or our own id in provider data, links.
import type { User } from '../model.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { Store } from '../ports/store.ts';
import { LinkRefusedError, UnknownUserError } from './operator-errors.ts';
import {
  applyCustomerListing,
  tally,
  type ListingDeps,
  type ListingOptions,
  type Tally,
} from './provider-listing.ts';
import { tierOf, type TierPolicy } from './tier.ts';

export interface LinkCustomerDeps extends ListingDeps {
  payments: PaymentsProvider;
  policy: TierPolicy;
  now?: () => Date;
}

export interface LinkCustomerResult extends Tally {
  idpId: string;
  customerId: string;
  /** The pair was linked already: only the reconciliation ran. */
  alreadyLinked: boolean;
  tierBefore: string;
  tierAfter: string;
}

async function idpIdOf(store: Store, userId: string): Promise<string> {
  return (await store.users.findById(userId))?.idpId ?? userId;
}

/** Links `customerId` to the user, or throws LinkRefusedError saying who holds either side. */
async function linkOrRefuse(
  { store, payments }: Pick<LinkCustomerDeps, 'store' | 'payments'>,
  user: User,
  customerId: string,
): Promise<void> {
  if (user.paymentsCustomerId !== null)
    throw new LinkRefusedError(
      `user ${user.idpId} is already linked to customer ${user.paymentsCustomerId}`,
    );
  const owner = await store.users.findByCustomerId(customerId);
  if (owner !== null)
    throw new LinkRefusedError(`customer ${customerId} is already linked to user ${owner.idpId}`);
  const [holder] = await store.subscriptions.holdersOf(customerId, user.id);
  if (holder !== undefined)
    throw new LinkRefusedError(
      `customer ${customerId} has subscriptions stored for user ${await idpIdOf(store, holder)}`,
    );
  if (!(await payments.customerExists(customerId)))
    throw new LinkRefusedError(`the payment provider has no customer ${customerId}`);
  const linked = await store.transaction((tx) => tx.users.linkCustomer(user.id, customerId));
  if (linked === customerId) return;
  // Another link won meanwhile (an operator, a checkout): say which, as above.
  const winner = await store.users.findByCustomerId(customerId);
  throw new LinkRefusedError(
    linked !== null
      ? `user ${user.idpId} is already linked to customer ${linked}`
      : `customer ${customerId} is already linked to user ${winner?.idpId ?? 'another user'}`,
  );
}

export async function linkCustomer(
  deps: LinkCustomerDeps,
  idpId: string,
  customerId: string,
  options: ListingOptions = {},
): Promise<LinkCustomerResult> {
  const clock = deps.now ?? (() => new Date());
  const user = await deps.store.users.findByIdpId(idpId);
  if (user === null) throw new UnknownUserError(idpId);
  const alreadyLinked = user.paymentsCustomerId === customerId;
  if (!alreadyLinked) await linkOrRefuse(deps, user, customerId);
  const tierBefore = tierOf(user.subscription, deps.policy, clock());
  const changes = await applyCustomerListing(deps, customerId, options);
  const after = await deps.store.users.findById(user.id);
  return {
    idpId,
    customerId,
    alreadyLinked,
    ...tally(changes),
    tierBefore,
    tierAfter: tierOf(after?.subscription ?? null, deps.policy, clock()),
  };
}
