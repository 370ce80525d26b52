// Pausing and resuming a subscription, as the pinned API version (endive) does it: a paused
// subscription (`status: paused`, `status_details.paused` saying since when and why) generates
// no invoices and does not advance to new periods.
//   pause    POST /v1/subscriptions/:id/pause, the dashboard's Pause: status paused (pause_requested);
//            customer.subscription.updated, then customer.subscription.paused
//   resume   POST /v1/subscriptions/:id/resume, the dashboard's Resume: status active; with
//            billing_cycle_anchor `now` (the default) a new period starts now, invoiced and paid
//            at once (invoice.paid); `unchanged` keeps the period; then customer.subscription.updated
//            and customer.subscription.resumed
// A renewal whose payment fails pauses the subscription instead of leaving it past_due when the
// account is set to (settings.ts, subscription-lifecycle.ts); paying that invoice resumes it.
import type Stripe from 'stripe';
import { mutate, type Outcome, type SimContext } from './context.ts';
import { invalidParam } from './errors.ts';
import type { Trigger } from './events.ts';
import { active, paused, withPeriod } from './objects/subscriptions.ts';
import { ENDED, invoiceFor, locked, transition, type Changed } from './subscription-lifecycle.ts';
import { addMonth, nowSeconds } from './time.ts';

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
      after = { ...withPeriod(after, at, addMonth(at)), billing_cycle_anchor: at };
      invoice = await invoiceFor(unit, after, true, at, 'subscription_update');
      after = { ...after, latest_invoice: invoice.id };
      await unit.emit('invoice.paid', invoice);
    }
    await transition(unit, before, after);
    return { subscription: after, invoice };
  });
}
