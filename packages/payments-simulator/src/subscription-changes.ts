// Changes a person or the API makes to a subscription: field updates, item changes (item-change.ts)
// and scheduled cancellations (customer.subscription.updated when something changed), cancel now
// (...deleted), and the portal's plan switch that bills the prorations at once (invoice.created,
// .finalized, .paid). A cancellation is scheduled either of Stripe's ways: `cancel_at` (the
// flexible billing mode's, what Stripe's portal does for the pinned API version) or the classic
// `cancel_at_period_end`, which sets cancel_at too.
import type Stripe from 'stripe';
import { mutate, type Outcome, type SimContext } from './context.ts';
import { invalidParam } from './errors.ts';
import type { Trigger } from './events.ts';
import { changeItem, type ItemChange } from './item-change.ts';
import { itemOf, scheduledEnd } from './objects/subscriptions.ts';
import { ENDED, locked, update, type Changed } from './subscription-lifecycle.ts';
import { nowSeconds } from './time.ts';

type Subscription = Stripe.Subscription;

/** Sets or clears cancel_at_period_end (with cancel_at and canceled_at, as Stripe does). */
export function cancelAtPeriodEnd(
  ctx: SimContext,
  id: string,
  cancel: boolean,
  trigger: Trigger,
): Promise<Outcome<Changed>> {
  return changeSubscription(ctx, id, trigger, (subscription) =>
    withCancelAtPeriodEnd(subscription, cancel),
  );
}

/** The portal's "Cancel at period end" for the pinned API version: cancel_at, the flag left false. */
export function scheduleCancel(
  ctx: SimContext,
  id: string,
  trigger: Trigger,
): Promise<Outcome<Changed>> {
  return changeSubscription(ctx, id, trigger, (subscription) =>
    withCancelAt(subscription, itemOf(subscription).current_period_end),
  );
}

export const refuseEnded = (subscription: Subscription, param: string): void => {
  if (ENDED.includes(subscription.status))
    throw invalidParam(
      'A canceled subscription can only update its cancellation_details and metadata.',
      param,
    );
};

/**
 * Sets `cancel_at` as the flexible billing mode does (cancel_at_period_end false), or with null
 * clears any scheduled cancellation, either way it was made.
 */
export function withCancelAt(subscription: Subscription, at: number | null): Subscription {
  refuseEnded(subscription, 'cancel_at');
  if (at === null && scheduledEnd(subscription) === null) return subscription;
  if (at !== null && subscription.cancel_at === at && !subscription.cancel_at_period_end)
    return subscription;
  return {
    ...subscription,
    cancel_at_period_end: false,
    cancel_at: at,
    canceled_at: at === null ? null : nowSeconds(),
    cancellation_details: {
      ...subscription.cancellation_details,
      reason: at === null ? null : 'cancellation_requested',
    } as Subscription['cancellation_details'],
  };
}

export function withCancelAtPeriodEnd(subscription: Subscription, cancel: boolean): Subscription {
  refuseEnded(subscription, 'cancel_at_period_end');
  // Undoing clears a cancellation made either way; setting is the classic way.
  if (!cancel) return withCancelAt(subscription, null);
  if (subscription.cancel_at_period_end) return subscription;
  return {
    ...subscription,
    cancel_at_period_end: cancel,
    cancel_at: cancel ? itemOf(subscription).current_period_end : null,
    canceled_at: cancel ? nowSeconds() : null,
    cancellation_details: {
      ...subscription.cancellation_details,
      reason: cancel ? 'cancellation_requested' : null,
    } as Subscription['cancellation_details'],
  };
}

/** Any change to the subscription's own fields, and to its item (POST /v1/subscriptions/:id). */
export function changeSubscription(
  ctx: SimContext,
  id: string,
  trigger: Trigger,
  change: (subscription: Subscription) => Subscription,
  item?: ItemChange,
): Promise<Outcome<Changed>> {
  return mutate(ctx, trigger, async (unit) => {
    const before = await locked(unit, id);
    const after = change(before);
    if (item !== undefined) return changeItem(unit, before, after, item);
    await update(unit, before, after);
    return { subscription: after, invoice: null };
  });
}

export function cancelNow(
  ctx: SimContext,
  id: string,
  trigger: Trigger,
  details?: { comment?: string; feedback?: string },
): Promise<Outcome<Changed>> {
  return mutate(ctx, trigger, async (unit) => {
    const before = await locked(unit, id);
    if (before.status === 'canceled')
      throw invalidParam(`Subscription ${id} has already been canceled.`);
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
        feedback: (details?.feedback ??
          before.cancellation_details?.feedback ??
          null) as Stripe.Subscription.CancellationDetails.Feedback | null,
        reason: 'cancellation_requested',
      } as Subscription['cancellation_details'],
    };
    await unit.docs.save('subscription', canceled);
    await unit.emit('customer.subscription.deleted', canceled);
    return { subscription: canceled, invoice: null };
  });
}

/** Moves the subscription's item to another price, keeping its period; refused while it is set to cancel. */
export function switchPrice(
  ctx: SimContext,
  id: string,
  priceId: string,
  trigger: Trigger,
): Promise<Outcome<Changed>> {
  return mutate(ctx, trigger, async (unit) => {
    const before = await locked(unit, id);
    if (ENDED.includes(before.status))
      throw invalidParam(`Subscription ${id} is ${before.status}; its plan cannot change.`);
    if (scheduledEnd(before) !== null)
      throw invalidParam(
        `Subscription ${id} is set to cancel at the end of its period; renew it before changing plans.`,
      );
    const item = itemOf(before);
    if (item.price.id === priceId)
      throw invalidParam(`Subscription ${id} is already on price ${priceId}.`, 'price');
    // The portal keeps the quantity and bills the prorations at once.
    return changeItem(unit, before, before, {
      item: item.id,
      price: priceId,
      quantity: item.quantity ?? 1,
      proration: 'always_invoice',
    });
  });
}
