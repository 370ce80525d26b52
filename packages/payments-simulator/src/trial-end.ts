// A trial ending now (the dashboard's "End trial", Stripe's `trial_end=now`), with the events
// Stripe sends: customer.subscription.trial_will_end, then with a payment method a new paid period
// (...updated, invoice.created, .finalized, .paid); without one, what its trial settings say:
// `cancel` (...deleted), `pause` (...paused, ...updated), or `create_invoice`, the default: past_due
// with its invoice unpaid (...updated, invoice.created, .finalized, .payment_failed).
import type Stripe from 'stripe';
import { applyCard } from './card-update.ts';
import { mutate, type Outcome, type SimContext, type Unit } from './context.ts';
import { invalidParam } from './errors.ts';
import { previousAttributes, type Trigger } from './events.ts';
import { announceInvoice, invoiceFor } from './invoicing.ts';
import { customerIdOf, itemOf, periodEndOf, withPeriod } from './objects/subscriptions.ts';
import { locked, update, type Changed } from './subscription-lifecycle.ts';
import { nowSeconds } from './time.ts';

type Subscription = Stripe.Subscription;

/** The first period after the trial, invoiced now: paid when `after` is active, else left open. */
async function billFirstPeriod(
  unit: Unit,
  { before, after }: { before: Subscription; after: Subscription },
  at: number,
): Promise<Changed> {
  const paid = after.status === 'active';
  // It looks back on the trial, the period just ended.
  const lookback = { start: before.trial_start ?? itemOf(before).current_period_start, end: at };
  const invoice = await invoiceFor(unit, after, { paid, at, lookback });
  const billed: Subscription = { ...after, latest_invoice: invoice.id };
  await update(unit, before, billed);
  await announceInvoice(unit, invoice, paid ? 'paid' : 'failed');
  return { subscription: billed, invoice };
}

async function hasPaymentMethod(unit: Unit, subscription: Subscription): Promise<boolean> {
  const { data: customer } = await unit.docs.require<Stripe.Customer>(
    'customer',
    customerIdOf(subscription),
  );
  const method =
    subscription.default_payment_method ??
    customer.invoice_settings?.default_payment_method ??
    null;
  return method !== null;
}

/** What the trial's end does without a payment method, as its trial settings say. */
async function endWithoutPaymentMethod(
  unit: Unit,
  before: Subscription,
  { at, next }: { at: number; next: Subscription },
): Promise<Changed> {
  switch (before.trial_settings?.end_behavior.missing_payment_method ?? 'create_invoice') {
    case 'cancel': {
      const canceled: Subscription = {
        ...before,
        status: 'canceled',
        trial_end: at,
        canceled_at: at,
        ended_at: at,
      };
      await unit.docs.save('subscription', canceled);
      await unit.emit('customer.subscription.deleted', canceled);
      return { subscription: canceled, invoice: null };
    }
    case 'pause': {
      const paused: Subscription = { ...before, status: 'paused', trial_end: at };
      await unit.docs.save('subscription', paused);
      await unit.emit('customer.subscription.paused', paused);
      await unit.emit('customer.subscription.updated', paused, previousAttributes(before, paused));
      return { subscription: paused, invoice: null };
    }
    default:
      return billFirstPeriod(unit, { before, after: { ...next, status: 'past_due' } }, at);
  }
}

/** `withCard` first adds a test card, as a person would on the merchant's page before it ends. */
export function endTrial(
  ctx: SimContext,
  id: string,
  trigger: Trigger,
  { withCard = false }: { withCard?: boolean } = {},
): Promise<Outcome<Changed>> {
  return mutate(ctx, trigger, async (unit) => {
    let before = await locked(unit, id);
    if (before.status !== 'trialing')
      throw invalidParam(
        `Subscription ${id} is ${before.status}, not trialing: it has no trial to end.`,
      );
    if (withCard) {
      await applyCard(unit, customerIdOf(before), '4242');
      before = await locked(unit, id);
    }
    const at = nowSeconds();
    await unit.emit('customer.subscription.trial_will_end', { ...before, trial_end: at });
    const next = withPeriod(
      { ...before, trial_end: at, billing_cycle_anchor: at },
      at,
      periodEndOf(itemOf(before).price, at),
    );
    if (await hasPaymentMethod(unit, before))
      return billFirstPeriod(unit, { before, after: { ...next, status: 'active' } }, at);
    return endWithoutPaymentMethod(unit, before, { at, next });
  });
}
