// A change to the subscription's item (its price, its quantity, or both), as `items[0]` of
// POST /v1/subscriptions/:id and the portal's plan switch make it, billed as `proration_behavior`
// says: create_prorations (Stripe's default) keeps the credit and the charge as pending invoice
// items that the next invoice bills; always_invoice bills them, and any still pending, on an
// invoice paid at once; none bills nothing. A trial is not prorated: nothing was charged for it.
// A price of another interval (a month to a year) resets the billing date, as Stripe does: a new
// period starts now and is invoiced and paid at once, with the credit for the unused time on the
// old price (none with proration_behavior=none) on the same invoice.
import type Stripe from 'stripe';
import type { Unit } from './context.ts';
import { noSuch } from './errors.ts';
import { announceInvoice, invoiceFor, nextInvoiceNumber, pendingFor } from './invoicing.ts';
import { planOf, unitOf } from './objects/catalog.ts';
import type { Adjustments } from './objects/charge.ts';
import type { LinePart } from './objects/invoices.ts';
import { adjustmentsOf } from './objects/offers.ts';
import {
  buildProrationInvoice,
  pendingInvoiceItem,
  prorationParts,
  unusedTime,
} from './objects/proration.ts';
import { customerIdOf, itemOf, periodEndOf, withPeriod } from './objects/subscriptions.ts';
import { update, type Changed } from './subscription-lifecycle.ts';
import { nowSeconds } from './time.ts';
import { requireRecurring } from './objects/one-time-prices.ts';

type Subscription = Stripe.Subscription;

export const PRORATION_BEHAVIORS = ['always_invoice', 'create_prorations', 'none'] as const;
export type ProrationBehavior = (typeof PRORATION_BEHAVIORS)[number];

export interface ItemChange {
  /** The subscription item, as `items[0][id]` names it. */
  item: string;
  price?: string;
  /** Without it the item keeps its quantity, unless its price changes: then 1, as at Stripe. */
  quantity?: number;
  proration: ProrationBehavior;
}

async function withChangedItem(
  unit: Unit,
  subscription: Subscription,
  change: ItemChange,
): Promise<Subscription> {
  const item = itemOf(subscription);
  if (change.item !== item.id) throw noSuch('subscription_item', change.item, 'items[0][id]');
  const repriced = change.price !== undefined && change.price !== item.price.id;
  const price = repriced
    ? requireRecurring(
        (
          await unit.docs.require<Stripe.Price>('price', change.price!, {
            param: 'items[0][price]',
          })
        ).data,
        'items[0][price]',
      )
    : item.price;
  const quantity = change.quantity ?? (repriced ? 1 : item.quantity);
  const changed = { ...item, price, plan: planOf(price), quantity };
  return { ...subscription, items: { ...subscription.items, data: [changed] } };
}

/**
 * Stores `edited` (`before` with its own fields updated) with its item changed, the prorations the
 * change makes, and the events: customer.subscription.updated, then the invoice's if one is made.
 */
export async function changeItem(
  unit: Unit,
  before: Subscription,
  edited: Subscription,
  change: ItemChange,
): Promise<Changed> {
  const changed = await withChangedItem(unit, edited, change);
  const unchanged = JSON.stringify(itemOf(changed)) === JSON.stringify(itemOf(edited));
  const newInterval = unitOf(itemOf(changed).price) !== unitOf(itemOf(edited).price);
  const bills = newInterval || change.proration !== 'none';
  if (unchanged || !bills || before.status === 'trialing') {
    await update(unit, before, changed);
    return { subscription: changed, invoice: null };
  }
  const at = nowSeconds();
  const adjustments = await adjustmentsOf(unit.docs, before);
  const made: Change = { before, edited, changed, adjustments };
  if (newInterval) return restartPeriod(unit, made, change.proration, at);
  const parts = prorationParts(edited, changed, at, adjustments);
  if (change.proration === 'always_invoice') return invoiceAtOnce(unit, made, parts, at);
  for (const part of parts)
    await unit.docs.save('invoiceitem', pendingInvoiceItem(changed, part, at));
  await update(unit, before, changed);
  return { subscription: changed, invoice: null };
}

interface Change {
  before: Subscription;
  /** `before` with its own fields updated, its item not yet changed. */
  edited: Subscription;
  changed: Subscription;
  adjustments: Adjustments;
}

/** A change of interval: the credit kept pending, then a new period from `at`, invoiced and paid. */
async function restartPeriod(
  unit: Unit,
  { before, edited, changed, adjustments }: Change,
  proration: ProrationBehavior,
  at: number,
): Promise<Changed> {
  if (proration !== 'none') {
    const credit = unusedTime(edited, at, adjustments);
    if (credit.quantity !== 0)
      await unit.docs.save('invoiceitem', pendingInvoiceItem(changed, credit, at));
  }
  const restarted: Subscription = {
    ...withPeriod(changed, at, periodEndOf(itemOf(changed).price, at)),
    billing_cycle_anchor: at,
  };
  const invoice = await invoiceFor(unit, restarted, {
    paid: true,
    at,
    reason: 'subscription_update',
  });
  const after: Subscription = { ...restarted, latest_invoice: invoice.id };
  await update(unit, before, after);
  await announceInvoice(unit, invoice, 'paid');
  return { subscription: after, invoice };
}

async function invoiceAtOnce(
  unit: Unit,
  { before, changed, adjustments }: Change,
  parts: LinePart[],
  at: number,
): Promise<Changed> {
  const pending = await pendingFor(unit.docs, changed);
  const taken = await nextInvoiceNumber(unit, customerIdOf(changed));
  const invoice = buildProrationInvoice({
    subscription: changed,
    customer: taken.customer,
    at,
    number: taken.number,
    parts: [...pending.parts, ...parts],
    adjustments,
  });
  const after: Subscription = { ...changed, latest_invoice: invoice.id };
  await unit.docs.save('invoice', invoice);
  await pending.billedBy(invoice.id);
  await update(unit, before, after);
  await announceInvoice(unit, invoice, 'paid');
  return { subscription: after, invoice };
}
