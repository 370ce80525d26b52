// Renewals, with the events Stripe sends. Renew starts the next period with a paid invoice (a
// past_due or paused subscription's open invoice is paid instead), or ends a subscription
// scheduled to end within the period. A schedule's next phase starts with the period
// (schedule-lifecycle.ts): the events are then subscription_schedule.updated (and .released),
// invoice.paid, customer.subscription.updated; Stripe documents no order. A failed renewal leaves
// the new period's invoice open: the subscription is past_due, or paused when the account pauses
// on payment failure (settings.ts).
// Cancellations are in subscription-changes.ts, trials in trial-end.ts.
import type Stripe from 'stripe';
import { mutate, type Outcome, type SimContext, type Unit } from './context.ts';
import { invalidParam } from './errors.ts';
import { previousAttributes, type Trigger } from './events.ts';
import { invoiceFor } from './invoicing.ts';
import { endWith, enterPhaseAt, scheduleOf } from './schedule-lifecycle.ts';
import { markPaid } from './objects/invoices.ts';
import {
  active,
  customerIdOf,
  itemOf,
  paused,
  periodEndOf,
  scheduledEnd,
  withPeriod,
} from './objects/subscriptions.ts';
import { nowSeconds, useCustomerClock } from './clock.ts';

type Subscription = Stripe.Subscription;
export interface Changed {
  subscription: Subscription;
  invoice: Stripe.Invoice | null;
}

export const ENDED = ['canceled', 'incomplete_expired'];

/** The subscription, locked; the request goes on on its customer's clock. */
export async function locked(unit: Unit, id: string): Promise<Subscription> {
  const { data } = await unit.docs.require<Subscription>('subscription', id, { lock: true });
  useCustomerClock(customerIdOf(data));
  return data;
}

function refuseEnded(subscription: Subscription, action: string): void {
  if (ENDED.includes(subscription.status))
    throw invalidParam(
      `Subscription ${subscription.id} is ${subscription.status}; it cannot be ${action}.`,
    );
  if (subscription.status === 'trialing')
    throw invalidParam(
      `Subscription ${subscription.id} is trialing; end its trial instead (end-trial).`,
    );
}

/** When the subscription ends within its current period (scheduled either way); null otherwise. */
function endsThisPeriod(subscription: Subscription): number | null {
  const end = scheduledEnd(subscription);
  return end !== null && end <= itemOf(subscription).current_period_end ? end : null;
}

/** Stores the change and emits customer.subscription.updated when anything differs. */
export async function update(unit: Unit, before: Subscription, after: Subscription): Promise<void> {
  const previous = previousAttributes(before, after);
  if (previous === undefined) return;
  await unit.docs.save('subscription', after);
  await unit.emit('customer.subscription.updated', after, previous);
}

/** Stores a pause or a resumption with its two events: ...updated, then ...paused or ...resumed. */
export async function transition(
  unit: Unit,
  before: Subscription,
  after: Subscription,
): Promise<void> {
  await update(unit, before, after);
  await unit.emit(
    after.status === 'paused' ? 'customer.subscription.paused' : 'customer.subscription.resumed',
    after,
  );
}

/** The period after the current one, at the item's price's interval. */
function nextPeriod(subscription: Subscription): Subscription {
  const { current_period_end: start, price } = itemOf(subscription);
  return withPeriod(
    subscription,
    start,
    periodEndOf(price, start, subscription.billing_cycle_anchor),
  );
}

/**
 * The renewal invoice of the period after `before`'s: made at the boundary (the clock was moved
 * there, or is past it), looking back on the period just ended.
 */
function renewalDates(before: Subscription): {
  at: number;
  lookback: { start: number; end: number };
} {
  const { current_period_start: start, current_period_end: end } = itemOf(before);
  return { at: end, lookback: { start, end } };
}

/** The end of the period ends it; a schedule that ends it then (`end_behavior=cancel`) completes. */
async function endAtPeriodEnd(
  unit: Unit,
  subscription: Subscription,
  at: number,
): Promise<Changed> {
  const schedule = await scheduleOf(unit.docs, subscription);
  if (schedule !== null) await endWith(unit, schedule, 'completed', at);
  const ended: Subscription = { ...subscription, status: 'canceled', ended_at: at };
  await unit.docs.save('subscription', ended);
  await unit.emit('customer.subscription.deleted', ended);
  return { subscription: ended, invoice: null };
}

export function renew(ctx: SimContext, id: string, trigger: Trigger): Promise<Outcome<Changed>> {
  return mutate(ctx, trigger, async (unit) => {
    const before = await locked(unit, id);
    refuseEnded(before, 'renewed');
    // The clock moves to the end the subscription reaches: its scheduled end, or its period's
    // (not for paying an open invoice: its period has begun already).
    const end = endsThisPeriod(before);
    if (end !== null) {
      await unit.advanceClock(end);
      return endAtPeriodEnd(unit, before, end);
    }
    let invoice: Stripe.Invoice;
    let after: Subscription;
    const open = await openInvoice(unit, before);
    if (before.status === 'paused' && open === null)
      throw invalidParam(`Subscription ${id} is paused; resume it before it renews.`);
    if (open !== null) {
      invoice = markPaid(open, nowSeconds()); // the retry of the failed payment succeeds
      await unit.docs.save('invoice', invoice);
      after = active(before);
    } else {
      await unit.advanceClock(itemOf(before).current_period_end);
      const entered = await enterPhaseAt(unit, before, itemOf(before).current_period_end);
      after = nextPeriod(entered);
      invoice = await invoiceFor(unit, after, { paid: true, ...renewalDates(before) });
      after = { ...after, status: 'active', latest_invoice: invoice.id };
    }
    await unit.emit('invoice.paid', invoice);
    if (before.status === 'paused') await transition(unit, before, after);
    else await update(unit, before, after);
    return { subscription: after, invoice };
  });
}

/** The invoice a past_due or paused subscription still owes, if any. */
async function openInvoice(unit: Unit, subscription: Subscription): Promise<Stripe.Invoice | null> {
  if (subscription.status !== 'past_due' && subscription.status !== 'paused') return null;
  if (typeof subscription.latest_invoice !== 'string') return null;
  const found = await unit.docs.get<Stripe.Invoice>('invoice', subscription.latest_invoice, {
    lock: true,
  });
  return found !== null && found.data.status === 'open' ? found.data : null;
}

export function failRenewal(
  ctx: SimContext,
  id: string,
  trigger: Trigger,
): Promise<Outcome<Changed>> {
  return mutate(ctx, trigger, async (unit) => {
    const before = await locked(unit, id);
    refuseEnded(before, 'charged');
    if (endsThisPeriod(before) !== null)
      throw invalidParam(
        `Subscription ${id} is set to cancel at the end of its period; it will not renew.`,
      );
    const open = await openInvoice(unit, before);
    if (before.status === 'paused' && open === null)
      throw invalidParam(`Subscription ${id} is paused; it does not renew.`);
    if (open === null) await unit.advanceClock(itemOf(before).current_period_end);
    if (open !== null) {
      // Another failed retry of the same invoice; the subscription itself does not change.
      const invoice: Stripe.Invoice = {
        ...open,
        attempt_count: open.attempt_count + 1,
        next_payment_attempt: nowSeconds() + 3 * 86_400,
      };
      await unit.docs.save('invoice', invoice);
      await unit.emit('invoice.payment_failed', invoice);
      return { subscription: before, invoice };
    }
    const entered = await enterPhaseAt(unit, before, itemOf(before).current_period_end);
    const advanced = nextPeriod(entered);
    const invoice = await invoiceFor(unit, advanced, { paid: false, ...renewalDates(before) });
    const unpaid: Subscription = { ...advanced, latest_invoice: invoice.id };
    await unit.emit('invoice.payment_failed', invoice);
    if (ctx.settings.pauseOnPaymentFailure) {
      const after = paused(unpaid, 'first_payment_failure');
      await transition(unit, before, after);
      return { subscription: after, invoice };
    }
    const after: Subscription = { ...unpaid, status: 'past_due' };
    await update(unit, before, after);
    return { subscription: after, invoice };
  });
}
