// Pausing and resuming, as the pinned API version (endive) does it: a paused subscription
// (`status_details.paused` says since when and why) is neither invoiced nor renewed. Each emits
// customer.subscription.updated, then .paused or .resumed; resuming with billing_cycle_anchor
// `now` (the default) starts a new period, invoiced and paid at once (invoice.paid).
import type Stripe from 'stripe';
import { mutate, type Outcome, type SimContext } from './context.ts';
import { invalidParam } from './errors.ts';
import type { Trigger } from './events.ts';
import { active, itemOf, paused, periodEndOf, withPeriod } from './objects/subscriptions.ts';
import { invoiceFor } from './invoicing.ts';
import { ENDED, locked, transition, type Changed } from './subscription-lifecycle.ts';
import { nowSeconds } from './time.ts';

export function pause(ctx: SimContext, id: string, trigger: Trigger): Promise<Outcome<Changed>> {
  return mutate(ctx, trigger, async (unit) => {
    const before = await locked(unit, id);
    if (ENDED.includes(before.status) || before.status === 'paused')
      throw invalidParam(
        `Subscription ${id} is ${before.status}; only a live subscription can be paused.`,
      );
    if (before.billing_mode?.type !== 'flexible')
      throw invalidParam('To pause a subscription, it must use the flexible billing mode.');
    if (before.schedule !== null)
      throw invalidParam(`Subscription ${id} has a schedule attached; it cannot be paused.`);
    const after = paused(before, 'pause_requested');
    await transition(unit, before, after);
    return { subscription: after, invoice: null };
  });
}

export type BillingCycleAnchor = 'now' | 'unchanged';

export function resume(
  ctx: SimContext,
  id: string,
  trigger: Trigger,
  anchor: BillingCycleAnchor = 'now',
): Promise<Outcome<Changed>> {
  return mutate(ctx, trigger, async (unit) => {
    const before = await locked(unit, id);
    if (before.status !== 'paused')
      throw invalidParam(
        `Subscription ${id} is ${before.status}; only a paused subscription can be resumed.`,
      );
    let after = active(before);
    let invoice: Stripe.Invoice | null = null;
    if (anchor === 'now') {
      const at = nowSeconds();
      after = {
        ...withPeriod(after, at, periodEndOf(itemOf(after).price, at)),
        billing_cycle_anchor: at,
      };
      invoice = await invoiceFor(unit, after, { paid: true, at, reason: 'subscription_update' });
      after = { ...after, latest_invoice: invoice.id };
      await unit.emit('invoice.paid', invoice);
    }
    await transition(unit, before, after);
    return { subscription: after, invoice };
  });
}
