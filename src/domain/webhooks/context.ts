// What an event handler is: `prepare` gathers provider reads before any transaction (no lock, no
// connection held), `apply` does the database work inside the event's transaction. Throwing
// rolls the whole event back; DecideAgain (delivery-reads.ts) makes the service read what is
// missing, outside the transaction, and apply again.
import { tierOf, type TierPolicy } from '../billing/tier.ts';
import type { CreditHolder } from '../credits/credit-changes.ts';
import type { CreditsPolicy } from '../credits/credit-packs.ts';
import type { Organization, User } from '../model/accounts.ts';
import type { PaymentEvent } from '../model/payment-events.ts';
import type { SubjectRef } from '../model/callers.ts';
import type { SubscriptionState } from '../model/subscriptions.ts';
import type { Logger } from '../ports/logger.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { Repositories, Store } from '../ports/store.ts';
import type { Telling } from '../events/subject-changes.ts';
import type { DeliveryReads } from './delivery-reads.ts';

export interface PrepareContext {
  /** Reads outside any transaction, to decide what to ask the provider first. */
  store: Pick<Store, 'subscriptions' | 'checkoutSessions'>;
  reads: DeliveryReads;
  /** For what an event makes the service do at the provider (close a subject's other sessions). */
  payments: PaymentsProvider;
  log: Logger;
  /** Whether this event is recorded already (then a provider call would be thrown away). */
  isRecorded(): Promise<boolean>;
}

export interface ApplyContext {
  tx: Repositories;
  reads: DeliveryReads;
  log: Logger;
  /** What the application is told of the changes the event makes, and when. */
  telling: Telling;
  /** The packs for sale and each tier's grant: what a purchase, a refund or a paid period adds. */
  credits: CreditsPolicy;
}

/**
 * The handler of one kind of event. Function-typed properties rather than methods, so that the
 * compiler checks the event parameter strictly: a handler of invoice events does not fit where a
 * handler of subscription events is expected.
 */
export interface EventHandler<E extends PaymentEvent> {
  /** The kind of event it takes; checked again when an event is handed to it. */
  readonly kind: E['kind'];
  readonly prepare?: (event: E, ctx: PrepareContext) => Promise<void>;
  readonly apply: (event: E, ctx: ApplyContext) => Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Our own ids an event carries in provider data: an organisation's (`org_id`), a user's (`user_id`, `client_reference_id`). */
export interface NamedSubject {
  userId: string | null;
  orgId: string | null;
}

/** Who an event's subscription or session belongs to: who pays for it. */
export interface PayingSubject {
  ref: SubjectRef;
  /** The user's idp_id, or the organisation's idp_org_id, for logs and operators. */
  idpId: string;
  paymentsCustomerId: string | null;
  /** The subscription deciding its tier, as the transaction found it. */
  subscription: SubscriptionState | null;
}

const ofUser = (user: User): PayingSubject => ({
  ref: { type: 'user', id: user.id },
  idpId: user.idpId,
  paymentsCustomerId: user.paymentsCustomerId,
  subscription: user.subscription,
});

const ofOrganization = (organization: Organization): PayingSubject => ({
  ref: { type: 'organization', id: organization.id },
  idpId: organization.idpOrgId,
  paymentsCustomerId: organization.paymentsCustomerId,
  subscription: organization.subscription,
});

/** The subject as its credits are kept: named as events name it, with its own tier now. */
export const creditHolder = (
  subject: PayingSubject,
  policy: TierPolicy,
  now: Date,
  tier = tierOf(subject.subscription, policy, now),
): CreditHolder => ({ type: subject.ref.type, id: subject.ref.id, idp_id: subject.idpId, tier });

/** The subject the customer is linked to: a user's or an organisation's customer, never both. */
async function linkedTo(tx: ApplyContext['tx'], customerId: string): Promise<PayingSubject | null> {
  const user = await tx.users.findByCustomerId(customerId);
  if (user !== null) return ofUser(user);
  const organization = await tx.organizations.findByCustomerId(customerId);
  return organization === null ? null : ofOrganization(organization);
}

/** The subject our own id in the event names: an organisation's first, as its sessions name only it. */
async function namedBy(tx: ApplyContext['tx'], named: NamedSubject): Promise<PayingSubject | null> {
  if (named.orgId !== null && UUID.test(named.orgId)) {
    const organization = await tx.organizations.findById(named.orgId);
    if (organization !== null) return ofOrganization(organization);
  }
  if (named.userId === null || !UUID.test(named.userId)) return null;
  const user = await tx.users.findById(named.userId);
  return user === null ? null : ofUser(user);
}

/**
 * The subject (a user or an organisation) an event belongs to: the one linked to its customer,
 * else the one our own id in the event names. A customer's link is ours and final; an id carried
 * in provider data (metadata, client_reference_id) that disagrees with it is logged and not
 * followed.
 */
export async function findEventSubject(
  ctx: Pick<ApplyContext, 'tx' | 'log'>,
  named: NamedSubject,
  customerId: string | null,
): Promise<PayingSubject | null> {
  const linked = customerId !== null ? await linkedTo(ctx.tx, customerId) : null;
  if (linked === null) return namedBy(ctx.tx, named);
  const namedId = linked.ref.type === 'user' ? named.userId : named.orgId;
  const other = linked.ref.type === 'user' ? named.orgId : named.userId;
  if ((namedId !== null && namedId !== linked.ref.id) || other !== null)
    ctx.log.warn(
      { customer: customerId, linked: linked.ref, named },
      'event names another subject than its customer is linked to: the customer link wins',
    );
  return linked;
}
