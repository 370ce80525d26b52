// Who pays, as checkout, the portal, the webhooks and the operator's commands see it: a user, or an
// organisation its members' tokens name. One shape for both, so every operation is written once;
// what differs (the default plan, the seats, the customer's name, the words of a refusal) is data.
import type { BillingAccount, Organization, User } from '../model/accounts.ts';
import type { SubjectRef } from '../model/callers.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { Repositories } from '../ports/store.ts';

export interface BillingSubject {
  ref: SubjectRef;
  account: BillingAccount;
  /** The plan its checkout sells when an operator set none. */
  defaultPlan: string;
  /** The seats a checkout sells. */
  quantity: number;
  /** What its provider customer is made with. */
  customer: { email?: string; name?: string };
  /** Where its idempotency keys start: a user's own id (keys already sent stay the same), or `org:` and the organisation's. */
  keyPrefix: string;
  /** Why a live subscription refuses a second checkout. */
  alreadySubscribed: string;
}

export const userSubject = (user: User, defaultPlan: string): BillingSubject => ({
  ref: { type: 'user', id: user.id },
  account: user,
  defaultPlan,
  quantity: 1,
  customer: { email: user.email },
  keyPrefix: user.id,
  alreadySubscribed: 'You already have an active subscription',
});

export const organizationSubject = (
  organization: Organization,
  { defaultPlan, quantity }: { defaultPlan: string; quantity: number },
): BillingSubject => ({
  ref: { type: 'organization', id: organization.id },
  account: organization,
  defaultPlan,
  quantity,
  // Whichever manager pays first, the customer is made with the same parameters (its idempotency
  // key is the organisation's): the checkout asks for the billing e-mail.
  customer: { name: organization.idpOrgId },
  keyPrefix: `org:${organization.id}`,
  alreadySubscribed: 'Your organisation already has an active subscription',
});

/**
 * Stores the provider customer as the subject's unless it has one or the customer is another
 * subject's (a user's or an organisation's); returns the subject's customer afterwards.
 */
export function linkCustomerTo(
  repos: Pick<Repositories, 'users' | 'organizations'>,
  ref: SubjectRef,
  customerId: string,
): Promise<string | null> {
  return ref.type === 'user'
    ? repos.users.linkCustomer(ref.id, customerId)
    : repos.organizations.linkCustomer(ref.id, customerId);
}

/** One provider customer per subject: the idempotency key and the stored link make it one under races. */
export async function customerOf(
  subject: BillingSubject,
  store: Pick<Repositories, 'users' | 'organizations'>,
  payments: Pick<PaymentsProvider, 'createCustomer'>,
): Promise<string> {
  if (subject.account.paymentsCustomerId) return subject.account.paymentsCustomerId;
  const created = await payments.createCustomer(
    { owner: subject.ref, ...subject.customer },
    `customer:${subject.keyPrefix}`,
  );
  return (await linkCustomerTo(store, subject.ref, created)) ?? created;
}
