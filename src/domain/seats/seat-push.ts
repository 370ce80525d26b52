// One organisation's push, under its lease (seat-sync.ts takes the lease): the desired quantity is
// counted and stored with a revision (new for every quantity to push, so 3 -> 4 -> 3 -> 4 never
// reuses a key; bumped too when the provider moved away from a quantity it accepted), and when the
// live subscription bills another quantity, it goes to the provider with create_prorations and an
// idempotency key from the organisation, its subscription and that revision: a retry of the same
// push (a failure, an instance killed mid-call) is the same key, one change at the provider. The
// provider's answer is applied through the webhook path's ordering.
import { applyListing } from '../billing/provider-listing.ts';
import { isLive } from '../billing/tier.ts';
import type { Logger } from '../ports/logger.ts';
import type { Metrics } from '../ports/metrics.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { Store } from '../ports/store.ts';
import type {
  ProviderRead,
  ProviderSubscription,
  SubscriptionState,
} from '../model/subscriptions.ts';
import { saveState } from '../webhooks/subscription-sync.ts';
import type { EventPolicy } from '../events/subject-changes.ts';
import { desiredSeats, type SeatSettings } from './desired-seats.ts';

export interface SeatPushDeps {
  store: Store;
  payments: PaymentsProvider;
  log: Logger;
  /** How the quantities it stores are told to the application. */
  policy: EventPolicy;
  metrics: Pick<Metrics, 'seatUpdate'>;
  /** This instance's name in the leases. */
  holder: string;
  settings: SeatSettings;
}

type BilledSubscription = SubscriptionState & { itemId: string };

/** Brings the organisation's subscription to its desired quantity; whether a quantity went to the provider. */
export async function pushSeats(deps: SeatPushDeps, organizationId: string): Promise<boolean> {
  const { store, holder } = deps;
  const subscription = await billedSubscription(store, organizationId);
  if (subscription === null) return false;
  const { quantity, pushedAlready } = await desired(deps, organizationId);
  const inStep = subscription.quantity === quantity;
  // The provider differs from a quantity it accepted (changed there): a new revision, a new key.
  const moved = !inStep && pushedAlready;
  const revision = await store.seats.setDesired(organizationId, holder, quantity, moved);
  if (revision === null) throw new Error('the lease was lost');
  if (inStep) return false;
  const answer = await send(deps, organizationId, subscription, { quantity, revision });
  if (!(await applyAnswer(deps, subscription, answer)))
    await lookAgain(deps, organizationId, answer);
  return true;
}

/** The organisation's subscription when it bills seats: none for one that is not live. */
async function billedSubscription(
  store: Store,
  organizationId: string,
): Promise<BilledSubscription | null> {
  const organization = await store.organizations.findById(organizationId);
  const subscription = organization?.subscription ?? null;
  // Nothing to bill for a subscription that is not live: the next one starts from the checkout's quantity.
  if (subscription === null || !isLive(subscription.status) || subscription.itemId === null)
    return null;
  return subscription as BilledSubscription;
}

/** The quantity wanted now, and whether the provider has accepted it already. */
async function desired(
  { store, settings }: SeatPushDeps,
  organizationId: string,
): Promise<{ quantity: number; pushedAlready: boolean }> {
  const [active, reported, target] = await Promise.all([
    store.organizations.countActiveMembers(organizationId, settings.activeDays),
    store.seats.reported(organizationId),
    store.seats.target(organizationId),
  ]);
  const quantity = desiredSeats(settings, { active, reported: reported?.count ?? null });
  const pushedAlready = target.desired === quantity && target.pushedRevision === target.revision;
  return { quantity, pushedAlready };
}

/** The quantity to the provider, under a key of the organisation's revision; its answer. */
async function send(
  { store, payments, holder, log, metrics }: SeatPushDeps,
  organizationId: string,
  subscription: BilledSubscription,
  { quantity, revision }: { quantity: number; revision: number },
): Promise<ProviderRead<ProviderSubscription>> {
  const key = `seats:${organizationId}:${subscription.id}:${revision}`;
  const answer = await payments.updateSubscriptionQuantity(
    { subscriptionId: subscription.id, itemId: subscription.itemId, quantity },
    key,
  );
  if (answer.value.quantity !== quantity)
    throw new Error(`the provider answered quantity ${answer.value.quantity}, not ${quantity}`);
  await store.seats.pushed(organizationId, holder, revision);
  metrics.seatUpdate('sent');
  const from = subscription.quantity;
  log.info(
    { organization: organizationId, subscription: subscription.id, from, to: quantity },
    'seat sync: quantity pushed',
  );
  return answer;
}

/**
 * The provider's answer to a push replaces the state seen before sending it (pushes for one
 * organisation follow one another, so two in one second are still in order); a state another
 * writer stored meanwhile is left to the ordering. Stored as of the second before the answer's:
 * everything older is in it, and the update's own event is newer, so it applies without a read.
 * False when what is stored now bills another quantity than the answer.
 */
async function applyAnswer(
  { store, log, policy }: SeatPushDeps,
  seen: SubscriptionState,
  answer: ProviderRead<ProviderSubscription>,
): Promise<boolean> {
  const asOf = answer.readAt - 1;
  const telling = { policy, cause: null, now: new Date() };
  const replaced = await store.transaction(async (tx) => {
    const stored = await tx.subscriptions.findForUpdate(seen.id);
    if (stored?.revision !== seen.revision) return false;
    const next = { stored, next: answer.value, asOf: Math.max(asOf, stored.asOf), created: asOf };
    return (await saveState({ tx, log, telling }, next)) === 'saved';
  });
  if (replaced) return true;
  const [change] = await applyListing(
    { store, log, policy },
    { value: [answer.value], readAt: asOf },
  );
  return change?.verdict === 'repaired' || change?.before?.quantity === answer.value.quantity;
}

/**
 * The ordering kept a state stored meanwhile over the answer, and it bills another quantity. It
 * may still be older than the push (a read is dated when it leaves the provider, maybe a second
 * after its data), and then the push's own event is older than it too: nothing would mark the
 * organisation again. Marked, it is looked at again, and the next push's answer replaces the
 * state that push was sent after.
 */
async function lookAgain(
  { store, log }: SeatPushDeps,
  organizationId: string,
  answer: ProviderRead<ProviderSubscription>,
): Promise<void> {
  log.warn(
    { organization: organizationId, subscription: answer.value.id },
    'seat sync: a state stored during the push bills another quantity; looking again',
  );
  await store.seats.mark(organizationId);
}
