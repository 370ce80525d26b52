// A trial ending now (the dashboard's "End trial", Stripe's `trial_end=now`), with the events
// Stripe sends: customer.subscription.trial_will_end first, then
//   with a payment method      active, a new period, its invoice paid: customer.subscription.updated,
//                              invoice.created, invoice.finalized, invoice.paid
//   without one, as the subscription's trial_settings[end_behavior][missing_payment_method] says:
//     cancel                   canceled at once: customer.subscription.deleted
//     pause                    paused: customer.subscription.paused, customer.subscription.updated
//     create_invoice (default) past_due, its invoice unpaid: customer.subscription.updated,
//                              invoice.created, invoice.finalized, invoice.payment_failed
// `withCard` first adds a test card, as a person would on the merchant's page before it ends.
import type Stripe from 'stripe';
import { applyCard } from './card-update.ts';
import { mutate, type Outcome, type SimContext, type Unit } from './context.ts';
import { invalidParam } from './errors.ts';
import { previousAttributes, type Trigger } from './events.ts';
import { takeInvoiceNumber } from './objects/customers.ts';
import { buildInvoice } from './objects/invoices.ts';
import { adjustmentsOf } from './objects/offers.ts';
import { earlierStages } from './objects/proration.ts';
import { withPeriod } from './objects/subscriptions.ts';
import { locked, update, type Changed } from './subscription-lifecycle.ts';
import { addMonth, nowSeconds } from './time.ts';

type Subscription = Stripe.Subscription;

const customerOf = (subscription: Subscription): string =>
  typeof subscription.customer === 'string' ? subscription.customer : subscription.customer.id;

/** The first period after the trial: invoiced now, paid when there is a way to pay. */
async function bill(
  unit: Unit,
  before: Subscription,
  after: Subscription,
  paid: boolean,
  at: number,
): Promise<Changed> {
  const customer = (
    await unit.docs.require<Stripe.Customer>('customer', customerOf(after), { lock: true })
  ).data;
  const taken = takeInvoiceNumber(customer);
  await unit.docs.save('customer', taken.customer);
  const invoice = buildInvoice({
    subscription: after,
    customer: taken.customer,
    reason: 'subscription_cycle',
    paid,
    at,
    number: taken.number,
    adjustments: await adjustmentsOf(unit.docs, after),
  });
  const billed: Subscription = { ...after, latest_invoice: invoice.id };
  await unit.docs.save('invoice', invoice);
  await update(unit, before, billed);
  const { draft, open } = earlierStages(invoice);
  await unit.emit('invoice.created', draft);
  await unit.emit('invoice.finalized', open);
  await unit.emit(paid ? 'invoice.paid' : 'invoice.payment_failed', paid ? invoice : open);
  return { subscription: billed, invoice: paid ? invoice : open };
}

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
      await applyCard(unit, customerOf(before), '4242');
      before = await locked(unit, id);
    }
    const at = nowSeconds();
    await unit.emit('customer.subscription.trial_will_end', before);
    const customer = (await unit.docs.require<Stripe.Customer>('customer', customerOf(before)))
      .data;
    const paymentMethod =
      before.default_payment_method ?? customer.invoice_settings?.default_payment_method ?? null;
    const next = withPeriod(
      { ...before, trial_end: at, billing_cycle_anchor: at },
      at,
      addMonth(at),
    );
    if (paymentMethod !== null) return bill(unit, before, { ...next, status: 'active' }, true, at);
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
        await unit.emit(
          'customer.subscription.updated',
          paused,
          previousAttributes(before, paused),
        );
        return { subscription: paused, invoice: null };
      }
      default:
        return bill(unit, before, { ...next, status: 'past_due' }, false, at);
    }
  });
}
