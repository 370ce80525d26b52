// Applies what the provider says about a subscription without ever letting an older state
// overwrite a newer one. The stored state carries `asOf`, a second on the provider's clock up to
// which it is known current (the newest event applied, or the provider's time of the read it came
// from). Against it an event is older (skipped, no call), newer (its snapshot applied), or from
// the same second, or for an unknown subscription: then the provider is read, outside the
// transaction, and the read applied only over the state it was sent after (or one it is newer than).
import type { ProviderSubscription, SubscriptionState } from '../model.ts';
import { DecideAgain } from './delivery-reads.ts';
import { findEventUser, type ApplyContext, type PrepareContext } from './context.ts';

/** Before the transaction: reads the subscription when the event alone cannot settle it. */
export async function prepareRead(
  ctx: PrepareContext,
  subscriptionId: string,
  created: number,
): Promise<void> {
  const stored = await ctx.store.subscriptions.find(subscriptionId);
  if ((stored === null || created >= stored.asOf) && !(await ctx.isRecorded()))
    await ctx.reads.fetch(subscriptionId, stored);
}

/**
 * In the transaction: brings the stored subscription up to the event created at `created`, with
 * the snapshot the event carries (`carried`; null for events that only name the subscription).
 */
export async function syncSubscription(
  ctx: ApplyContext,
  id: string,
  created: number,
  carried: ProviderSubscription | null,
): Promise<void> {
  // The common cases, the next event of a known subscription or a late one, in one statement.
  const verdict =
    carried === null ? 'undecided' : await ctx.tx.subscriptions.applyIfNewer(carried, created);
  if (verdict === 'applied') return;
  if (verdict === 'older') return skipped(ctx, id, created);
  const stored = await ctx.tx.subscriptions.findForUpdate(id);
  if (stored !== null && created < stored.asOf) return skipped(ctx, id, created);
  if (carried !== null && stored !== null && created > stored.asOf) {
    await saveState(ctx, { stored, next: carried, asOf: created, created });
    return;
  }
  const read = ctx.reads.usable(id, stored);
  if (read.value !== null) {
    const asOf = Math.max(read.readAt, stored?.asOf ?? 0);
    await saveState(ctx, { stored, next: read.value, asOf, created });
    return;
  }
  if (carried === null)
    return ctx.log.warn({ subscription: id }, 'provider does not know this subscription');
  // The provider does not know it, so cannot settle a same-second tie: a fixed order, so every
  // delivery order ends alike.
  if (stored !== null && !laterInLifecycle(carried, stored)) return;
  await saveState(ctx, { stored, next: carried, asOf: created, created });
}

const skipped = (ctx: ApplyContext, id: string, created: number) =>
  ctx.log.debug({ subscription: id, created }, 'event older than the stored subscription: skipped');

const LIFECYCLE_RANK: Record<string, number> = {
  incomplete: 0,
  trialing: 1,
  active: 2,
  past_due: 3,
  paused: 4,
  unpaid: 4,
  incomplete_expired: 5,
  canceled: 5,
};

/** Set to end, either of the provider's ways (cancel_at, or cancel_at_period_end). */
const scheduled = (s: ProviderSubscription | SubscriptionState): boolean =>
  s.cancelAtPeriodEnd || s.cancelAt !== null;

function laterInLifecycle(a: ProviderSubscription, b: SubscriptionState): boolean {
  const rank = (LIFECYCLE_RANK[a.status] ?? 0) - (LIFECYCLE_RANK[b.status] ?? 0);
  return rank !== 0 ? rank > 0 : scheduled(a) && !scheduled(b);
}

export interface NewState {
  /** What is stored now, locked; null for a first snapshot. */
  stored: SubscriptionState | null;
  next: ProviderSubscription;
  /** Unix seconds, provider clock: `next` is the provider's state as of then. */
  asOf: number;
  /** Unix seconds: the event's time, from which a grace period starts. */
  created: number;
}

/**
 * Stores `next` as the subscription's state as of `asOf` for its user: the stored one's, else the
 * user its customer is linked to (or its metadata names); 'unlinked', storing nothing, when there
 * is none. Exported for the provider's listings (billing/provider-listing.ts).
 */
export async function saveState(
  ctx: Pick<ApplyContext, 'tx' | 'log'>,
  { stored, next, asOf, created }: NewState,
): Promise<'saved' | 'unlinked'> {
  // A subscription never changes customer: the user is looked up (and linked) for a first snapshot only.
  const user =
    stored !== null && stored.customerId === next.customerId
      ? null
      : await findEventUser(ctx, next.metadataUserId, next.customerId);
  const userId = user?.id ?? stored?.userId;
  if (userId === undefined) {
    ctx.log.warn(
      { subscription: next.id, customer: next.customerId },
      'subscription for an unknown customer: acknowledged, nothing stored',
    );
    return 'unlinked';
  }
  if (user && user.paymentsCustomerId === null)
    await ctx.tx.users.linkCustomer(user.id, next.customerId);
  // The grace period runs from the first failure we learn of, and ends with the past_due status.
  const paymentFailedAt =
    next.status === 'past_due' ? (stored?.paymentFailedAt ?? new Date(created * 1000)) : null;
  const state = { ...next, userId, paymentFailedAt, asOf };
  if (stored !== null) await ctx.tx.subscriptions.update(state);
  else if (!(await ctx.tx.subscriptions.insert(state)))
    throw new DecideAgain(`subscription ${next.id} was stored by another delivery meanwhile`);
  return 'saved';
}
