// Changes a person or the API makes to a subscription: cancel at period end (or undo it) and other
// field updates emit customer.subscription.updated when something changed; cancel now ends it at
// once (status canceled, customer.subscription.deleted).
import type Stripe from 'stripe';
import { mutate, type Outcome, type SimContext } from './context.ts';
import { invalidParam } from './errors.ts';
import type { Trigger } from './events.ts';
import { itemOf } from './objects/subscriptions.ts';
import { ENDED, locked, update, type Changed } from './subscription-lifecycle.ts';
import { nowSeconds } from './time.ts';

type Subscription = Stripe.Subscription;

/** Sets or clears cancel_at_period_end (with cancel_at and canceled_at, as Stripe does). */
export function cancelAtPeriodEnd(ctx: SimContext, id: string, cancel: boolean, trigger: Trigger): Promise<Outcome<Changed>> {
  return changeSubscription(ctx, id, trigger, (subscription) => withCancelAtPeriodEnd(subscription, cancel));
}

export function withCancelAtPeriodEnd(subscription: Subscription, cancel: boolean): Subscription {
  if (ENDED.includes(subscription.status)) throw invalidParam('A canceled subscription can only update its cancellation_details and metadata.', 'cancel_at_period_end');
  if (subscription.cancel_at_period_end === cancel) return subscription;
  return {
    ...subscription,
    cancel_at_period_end: cancel,
    cancel_at: cancel ? itemOf(subscription).current_period_end : null,
    canceled_at: cancel ? nowSeconds() : null,
    cancellation_details: { ...subscription.cancellation_details, reason: cancel ? 'cancellation_requested' : null } as Subscription['cancellation_details'],
  };
}

/** Any change to the subscription's own fields (POST /v1/subscriptions/:id). */
export function changeSubscription(ctx: SimContext, id: string, trigger: Trigger, change: (subscription: Subscription) => Subscription): Promise<Outcome<Changed>> {
  return mutate(ctx, trigger, async (unit) => {
    const before = await locked(unit, id);
    const after = change(before);
    await update(unit, before, after);
    return { subscription: after, invoice: null };
  });
}

export function cancelNow(ctx: SimContext, id: string, trigger: Trigger, details?: { comment?: string; feedback?: string }): Promise<Outcome<Changed>> {
  return mutate(ctx, trigger, async (unit) => {
    const before = await locked(unit, id);
    if (before.status === 'canceled') throw invalidParam(`Subscription ${id} has already been canceled.`);
    const at = nowSeconds();
    const canceled: Subscription = {
      ...before,
      status: 'canceled',
      cancel_at_period_end: false,
      canceled_at: at,
      ended_at: at,
      cancellation_details: {
        ...before.cancellation_details,
        comment: details?.comment ?? before.cancellation_details?.comment ?? null,
        feedback: (details?.feedback ?? before.cancellation_details?.feedback ?? null) as Stripe.Subscription.CancellationDetails.Feedback | null,
        reason: 'cancellation_requested',
      } as Subscription['cancellation_details'],
    };
    await unit.docs.save('subscription', canceled);
    await unit.emit('customer.subscription.deleted', canceled);
    return { subscription: canceled, invoice: null };
  });
}
