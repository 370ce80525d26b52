// Changes a person or the API makes to a subscription: cancel at period end (or undo it) and other
// field updates emit customer.subscription.updated when something changed; cancel now ends it at
// once (status canceled, customer.subscription.deleted); a plan switch (the portal's) changes the
// item's price, then bills the prorations at once (invoice.created, .finalized, .paid).
import type Stripe from 'stripe';
import { mutate, type Outcome, type SimContext } from './context.ts';
import { invalidParam } from './errors.ts';
import type { Trigger } from './events.ts';
import { planOf } from './objects/catalog.ts';
import { takeInvoiceNumber } from './objects/customers.ts';
import { buildProrationInvoice, earlierStages } from './objects/proration.ts';
import { itemOf } from './objects/subscriptions.ts';
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

export function withCancelAtPeriodEnd(subscription: Subscription, cancel: boolean): Subscription {
  if (ENDED.includes(subscription.status))
    throw invalidParam(
      'A canceled subscription can only update its cancellation_details and metadata.',
      'cancel_at_period_end',
    );
  if (subscription.cancel_at_period_end === cancel) return subscription;
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

/** Any change to the subscription's own fields (POST /v1/subscriptions/:id). */
export function changeSubscription(
  ctx: SimContext,
  id: string,
  trigger: Trigger,
  change: (subscription: Subscription) => Subscription,
): Promise<Outcome<Changed>> {
  return mutate(ctx, trigger, async (unit) => {
    const before = await locked(unit, id);
    const after = change(before);
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
    if (before.cancel_at_period_end)
      throw invalidParam(
        `Subscription ${id} is set to cancel at the end of its period; renew it before changing plans.`,
      );
    const item = itemOf(before);
    if (item.price.id === priceId)
      throw invalidParam(`Subscription ${id} is already on price ${priceId}.`, 'price');
    const price = (await unit.docs.require<Stripe.Price>('price', priceId, { param: 'price' }))
      .data;
    const customerId = typeof before.customer === 'string' ? before.customer : before.customer.id;
    const taken = takeInvoiceNumber(
      (await unit.docs.require<Stripe.Customer>('customer', customerId, { lock: true })).data,
    );
    await unit.docs.save('customer', taken.customer);
    const switched: Subscription = {
      ...before,
      items: { ...before.items, data: [{ ...item, price, plan: planOf(price) }] },
    };
    const invoice = buildProrationInvoice({
      before,
      after: switched,
      customer: taken.customer,
      at: nowSeconds(),
      number: taken.number,
    });
    const after: Subscription = { ...switched, latest_invoice: invoice.id };
    await unit.docs.save('invoice', invoice);
    await update(unit, before, after);
    const { draft, open } = earlierStages(invoice);
    await unit.emit('invoice.created', draft);
    await unit.emit('invoice.finalized', open);
    await unit.emit('invoice.paid', invoice);
    return { subscription: after, invoice };
  });
}
