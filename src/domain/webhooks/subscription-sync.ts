// Applies what the provider says about a subscription without ever letting an older state
// overwrite a newer one (ordering.ts). An event older than the stored state is skipped, no call; a
// newer one's snapshot is applied; one of the same second, or for an unknown subscription, needs
// the provider read, outside the transaction, and the read is applied only over the state it was
// sent after (or one it is newer than).
import type { ProviderSubscription, SubscriptionState } from '../model/subscriptions.ts';
import { DecideAgain } from './delivery-reads.ts';
import { linkCustomerTo } from '../billing/billing-subject.ts';
import { findEventSubject, type ApplyContext, type PrepareContext } from './context.ts';
import { laterInLifecycle, ordering } from './ordering.ts';
import { subscriptionWritten } from './subscription-written.ts';

/** Before the transaction: reads the subscription when the event alone cannot settle it. */
export async function prepareRead(
  ctx: PrepareContext,
  subscriptionId: string,
  created: number,
): Promise<void> {
  const stored = await ctx.store.subscriptions.find(subscriptionId);
  if ((stored === null || ordering(created, stored.asOf) !== 'older') && !(await ctx.isRecorded()))
    await ctx.reads.fetch(subscriptionId, stored);
}

/** What syncing a subscription needs of an event's transaction (not the credit rules). */
export type SyncContext = Omit<ApplyContext, 'credits'>;

/**
 * In the transaction: brings the stored subscription up to the event created at `created`, with
 * the snapshot the event carries (`carried`; null for events that only name the subscription).
 */
export async function syncSubscription(
  ctx: SyncContext,
  id: string,
  created: number,
  carried: ProviderSubscription | null,
): Promise<void> {
  // The common cases, the next event of a known subscription or a late one, in one statement: it
  // writes exactly when the event is newer than the stored state, and else says what stands.
  if (carried !== null) {
    const write = await ctx.tx.subscriptions.updateIfAsOfBelow(stateAsOfEvent(carried, created));
    if (write.written) return subscriptionWritten(ctx.tx, write, ctx.telling);
    if (write.storedAsOf !== null && ordering(created, write.storedAsOf) === 'older')
      return skipped(ctx, id, created);
  }
  const stored = await ctx.tx.subscriptions.findForUpdate(id);
  const order = stored === null ? null : ordering(created, stored.asOf);
  if (order === 'older') return skipped(ctx, id, created);
  if (carried !== null && order === 'newer') {
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
  if (stored !== null && !laterInLifecycle(carried, stored)) return;
  await saveState(ctx, { stored, next: carried, asOf: created, created });
}

/** The state a snapshot event carries, as of its `created`, for a conditional write. */
const stateAsOfEvent = (carried: ProviderSubscription, created: number) => ({
  ...carried,
  paymentFailedAt: failingSince(carried, null, created),
  asOf: created,
});

const skipped = (ctx: SyncContext, id: string, created: number) =>
  ctx.log.debug({ subscription: id, created }, 'event older than the stored subscription: skipped');

/**
 * The grace period runs from the first failure we learn of (the stored one's, else this event's),
 * and ends with the past_due status.
 */
const failingSince = (
  next: ProviderSubscription,
  stored: SubscriptionState | null,
  created: number,
): Date | null =>
  next.status === 'past_due' ? (stored?.paymentFailedAt ?? new Date(created * 1000)) : null;

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
 * Stores `next` as the subscription's state as of `asOf` for who pays: the stored one's, else the
 * subject (a user or an organisation) its customer is linked to, or its metadata names ('unlinked',
 * storing nothing, when there is none). Exported for the provider's listings
 * (billing/provider-listing.ts).
 */
export async function saveState(
  ctx: Pick<ApplyContext, 'tx' | 'log' | 'telling'>,
  { stored, next, asOf, created }: NewState,
): Promise<'saved' | 'unlinked'> {
  // A subscription never changes customer: who pays is looked up (and linked) for a first snapshot only.
  const subject =
    stored !== null && stored.customerId === next.customerId
      ? null
      : await findEventSubject(
          ctx,
          { userId: next.metadataUserId, orgId: next.metadataOrgId },
          next.customerId,
        );
  const owner = subject?.ref ?? stored?.owner;
  if (owner === undefined) {
    ctx.log.warn(
      { subscription: next.id, customer: next.customerId },
      'subscription for an unknown customer: acknowledged, nothing stored',
    );
    return 'unlinked';
  }
  if (subject && subject.paymentsCustomerId === null)
    await linkCustomerTo(ctx.tx, subject.ref, next.customerId);
  const state = { ...next, owner, paymentFailedAt: failingSince(next, stored, created), asOf };
  if (stored !== null) await ctx.tx.subscriptions.update(state);
  else if (!(await ctx.tx.subscriptions.insert(state)))
    throw new DecideAgain(`subscription ${next.id} was stored by another delivery meanwhile`);
  await subscriptionWritten(ctx.tx, { before: stored, after: state }, ctx.telling);
  return 'saved';
}
