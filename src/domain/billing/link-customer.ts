// Adopting a customer made elsewhere (before the service was connected, or in the provider's
// dashboard): links it to a user or an organisation, then applies its subscriptions as a
// reconciliation does. Refused, with the reason, when either side is linked to someone else (a
// user's customer is never an organisation's, nor the other way round), when a subscription of the
// customer, stored or at the provider, belongs to another of our users or organisations, or the
// provider has no such customer. Never by e-mail: only an operator's explicit pairing, or our own
// id in provider data, links.
import type { ProviderSubscription, SubscriptionState } from '../model/subscriptions.ts';
import type { SubjectRef } from '../model/callers.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { Store } from '../ports/store.ts';
import { linkCustomerTo } from './billing-subject.ts';
import { LinkRefusedError, UnknownOrganizationError, UnknownUserError } from './operator-errors.ts';
import {
  applyCustomerListing,
  tally,
  type ListingDeps,
  type ListingOptions,
  type Tally,
} from './provider-listing.ts';
import { tierOf } from './tier.ts';
import type { EventPolicy } from '../events/subject-changes.ts';

export interface LinkCustomerDeps extends ListingDeps {
  payments: PaymentsProvider;
  policy: EventPolicy;
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

/** The user or organisation a customer is linked to, as it is read back for the tier. */
interface Adoptee {
  ref: SubjectRef;
  idpId: string;
  paymentsCustomerId: string | null;
  subscription: SubscriptionState | null;
}

/** How an operator reads a subject: `user alice`, `organisation acme`. */
async function nameOf(store: Store, ref: SubjectRef): Promise<string> {
  if (ref.type === 'user') return `user ${(await store.users.findById(ref.id))?.idpId ?? ref.id}`;
  return `organisation ${(await store.organizations.findById(ref.id))?.idpOrgId ?? ref.id}`;
}

/** Who holds the customer now, a user or an organisation; null: nobody. */
async function holderOf(store: Store, customerId: string): Promise<string | null> {
  const user = await store.users.findByCustomerId(customerId);
  if (user !== null) return `user ${user.idpId}`;
  const organization = await store.organizations.findByCustomerId(customerId);
  return organization === null ? null : `organisation ${organization.idpOrgId}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Our ids a subscription's metadata names (our checkouts write them); other systems' ids are not ours. */
const namedIn = (subscription: ProviderSubscription): SubjectRef[] => [
  ...(subscription.metadataUserId !== null && UUID.test(subscription.metadataUserId)
    ? [{ type: 'user' as const, id: subscription.metadataUserId }]
    : []),
  ...(subscription.metadataOrgId !== null && UUID.test(subscription.metadataOrgId)
    ? [{ type: 'organization' as const, id: subscription.metadataOrgId }]
    : []),
];

/**
 * Why the customer's subscriptions at the provider are another subject's: one names another of
 * our users or organisations in its metadata (made for them, its events perhaps lost). Null: none.
 */
async function namedForAnother(
  { store, payments }: Pick<LinkCustomerDeps, 'store' | 'payments'>,
  adoptee: Adoptee,
  customerId: string,
): Promise<string | null> {
  const { value: subscriptions } = await payments.listSubscriptions(customerId);
  for (const subscription of subscriptions)
    for (const ref of namedIn(subscription)) {
      if (ref.type === adoptee.ref.type && ref.id === adoptee.ref.id) continue;
      const ours =
        ref.type === 'user'
          ? await store.users.findById(ref.id)
          : await store.organizations.findById(ref.id);
      if (ours !== null)
        return `customer ${customerId} has subscription ${subscription.id} made for ${await nameOf(store, ref)} (its metadata names them at the payment provider)`;
    }
  return null;
}

/** Links `customerId` to the adoptee, or throws LinkRefusedError saying who holds either side. */
async function linkOrRefuse(
  { store, payments }: Pick<LinkCustomerDeps, 'store' | 'payments'>,
  adoptee: Adoptee,
  customerId: string,
): Promise<void> {
  const name = await nameOf(store, adoptee.ref);
  if (adoptee.paymentsCustomerId !== null)
    throw new LinkRefusedError(
      `${name} is already linked to customer ${adoptee.paymentsCustomerId}`,
    );
  const owner = await holderOf(store, customerId);
  if (owner !== null)
    throw new LinkRefusedError(`customer ${customerId} is already linked to ${owner}`);
  const [holder] = await store.subscriptions.holdersOf(customerId, adoptee.ref);
  if (holder !== undefined)
    throw new LinkRefusedError(
      `customer ${customerId} has subscriptions stored for ${await nameOf(store, holder)}`,
    );
  if (!(await payments.customerExists(customerId)))
    throw new LinkRefusedError(`the payment provider has no customer ${customerId}`);
  const another = await namedForAnother({ store, payments }, adoptee, customerId);
  if (another !== null) throw new LinkRefusedError(another);
  const linked = await store.transaction((tx) => linkCustomerTo(tx, adoptee.ref, customerId));
  if (linked === customerId) return;
  // Another link won meanwhile (an operator, a checkout): say which, as above.
  throw new LinkRefusedError(
    linked !== null
      ? `${name} is already linked to customer ${linked}`
      : `customer ${customerId} is already linked to ${(await holderOf(store, customerId)) ?? 'another user'}`,
  );
}

async function adopt(
  deps: LinkCustomerDeps,
  adoptee: Adoptee,
  customerId: string,
  reload: () => Promise<Adoptee | null>,
  options: ListingOptions,
): Promise<LinkCustomerResult> {
  const clock = deps.now ?? (() => new Date());
  const alreadyLinked = adoptee.paymentsCustomerId === customerId;
  if (!alreadyLinked) await linkOrRefuse(deps, adoptee, customerId);
  const tierBefore = tierOf(adoptee.subscription, deps.policy, clock());
  const changes = await applyCustomerListing(deps, customerId, { cause: 'operator', ...options });
  const after = await reload();
  return {
    idpId: adoptee.idpId,
    customerId,
    alreadyLinked,
    ...tally(changes),
    tierBefore,
    tierAfter: tierOf(after?.subscription ?? null, deps.policy, clock()),
  };
}

export async function linkCustomer(
  deps: LinkCustomerDeps,
  idpId: string,
  customerId: string,
  options: ListingOptions = {},
): Promise<LinkCustomerResult> {
  const find = async (): Promise<Adoptee | null> => {
    const user = await deps.store.users.findByIdpId(idpId);
    return user && { ...user, ref: { type: 'user', id: user.id } };
  };
  const user = await find();
  if (user === null) throw new UnknownUserError(idpId);
  return adopt(deps, user, customerId, find, options);
}

/** The same for an organisation, known by its issuer and its id at the identity provider. */
export async function linkOrganizationCustomer(
  deps: LinkCustomerDeps,
  organization: { issuer: string; idpOrgId: string },
  customerId: string,
  options: ListingOptions = {},
): Promise<LinkCustomerResult> {
  const find = async (): Promise<Adoptee | null> => {
    const found = await deps.store.organizations.findByIdpOrgId(
      organization.issuer,
      organization.idpOrgId,
    );
    return (
      found && { ...found, idpId: found.idpOrgId, ref: { type: 'organization', id: found.id } }
    );
  };
  const found = await find();
  if (found === null) throw new UnknownOrganizationError(organization.idpOrgId);
  return adopt(deps, found, customerId, find, options);
}
