// Applies a subscription snapshot without ever letting an older one overwrite a newer one.
// Stripe delivers out of order and `created` has one-second resolution, so: an older event is
// skipped, a newer one applied, and when the guard cannot decide (same second, unknown
// subscription, or an event no newer than our last provider read) the provider is asked.
import type { ProviderSubscription, SubscriptionState } from '../model.ts';
import { findEventUser, type HandlerContext } from './context.ts';

type Decision = 'apply' | 'skip' | 'reread';

function decide(stored: SubscriptionState | null, created: number): Decision {
  if (stored === null || created === stored.eventCreated) return 'reread';
  if (created < stored.eventCreated) return 'skip';
  if (stored.syncedAt !== null && created <= Math.floor(stored.syncedAt.getTime() / 1000)) return 'reread';
  return 'apply';
}

// Used only when the provider cannot be asked about a same-second tie: a fixed order, so every
// delivery order ends in the same state.
const LIFECYCLE_RANK: Record<string, number> = { incomplete: 0, trialing: 1, active: 2, past_due: 3, paused: 4, unpaid: 4, incomplete_expired: 5, canceled: 5 };

function laterInLifecycle(a: ProviderSubscription, b: SubscriptionState): boolean {
  const rank = (LIFECYCLE_RANK[a.status] ?? 0) - (LIFECYCLE_RANK[b.status] ?? 0);
  return rank !== 0 ? rank > 0 : a.cancelAtPeriodEnd && !b.cancelAtPeriodEnd;
}

/**
 * Stores a provider snapshot for its user (found by the metadata user id, else the customer):
 * `created` (unix seconds) is the moment the snapshot is known to be current at, `syncedAt` when
 * it was re-read from the provider (null when it came with an event). Exported for sync-user.
 */
export async function saveProviderState(ctx: HandlerContext, stored: SubscriptionState | null, next: ProviderSubscription, created: number, syncedAt: Date | null): Promise<void> {
  // A stored subscription already names its user, and a subscription never changes customer:
  // the user is looked up (and the customer linked) for a first snapshot only.
  const user = stored !== null && stored.customerId === next.customerId ? null : await findEventUser(ctx.tx, next.metadataUserId, next.customerId);
  const userId = user?.id ?? stored?.userId;
  if (userId === undefined) {
    ctx.log.warn({ subscription: next.id, customer: next.customerId }, 'subscription for an unknown customer: acknowledged, nothing stored');
    return;
  }
  if (user && user.paymentsCustomerId === null) await ctx.tx.users.linkCustomer(user.id, next.customerId);
  // The grace period runs from the first failure we learn of, and ends with the past_due status.
  const paymentFailedAt = next.status === 'past_due' ? (stored?.paymentFailedAt ?? new Date(created * 1000)) : null;
  await ctx.tx.subscriptions.save({ ...next, userId, paymentFailedAt, eventCreated: Math.max(created, stored?.eventCreated ?? 0), syncedAt });
}

/** Applies a snapshot carried by an event created at `created` (unix seconds). */
export async function applySubscriptionEvent(ctx: HandlerContext, incoming: ProviderSubscription, created: number): Promise<void> {
  // The common case, the next event of a known subscription, is decide()'s 'apply' done by the
  // store in one statement (a round trip less per event); anything else is decided below.
  if (await ctx.tx.subscriptions.applyIfNewer(incoming, created)) return;
  const stored = await ctx.tx.subscriptions.find(incoming.id);
  const decision = decide(stored, created);
  if (decision === 'skip') return ctx.log.info({ subscription: incoming.id, created }, 'older subscription event skipped');
  if (decision === 'reread') {
    const fresh = await ctx.payments.retrieveSubscription(incoming.id);
    if (fresh !== null) return saveProviderState(ctx, stored, fresh, created, ctx.now);
    if (stored !== null && created <= stored.eventCreated && !laterInLifecycle(incoming, stored)) return;
  }
  return saveProviderState(ctx, stored, incoming, created, stored?.syncedAt ?? null);
}

/** Re-reads a subscription named by an event (an invoice, a completed checkout) and applies it. */
export async function refreshSubscription(ctx: HandlerContext, subscriptionId: string, created: number): Promise<void> {
  const fresh = await ctx.payments.retrieveSubscription(subscriptionId);
  if (fresh === null) return ctx.log.warn({ subscription: subscriptionId }, 'provider does not know this subscription');
  return saveProviderState(ctx, await ctx.tx.subscriptions.find(subscriptionId), fresh, created, ctx.now);
}
