// A plan switch billed at once, as Stripe's portal does with "prorate and invoice immediately":
// one invoice with two proration lines (credit for the unused time on the old price, charge for the
// remaining time on the new one), paid at once.
import type Stripe from 'stripe';
import { tierTitle } from './catalog.ts';
import { buildInvoice, lineOf } from './invoices.ts';
import type { Adjustments } from './offers.ts';
import { itemOf } from './subscriptions.ts';

const titleOf = (price: Stripe.Price): string =>
  tierTitle(price.lookup_key ?? price.nickname ?? price.id);

export interface PlanSwitch {
  before: Stripe.Subscription;
  after: Stripe.Subscription;
  customer: Stripe.Customer;
  /** Unix seconds: when the switch happens; the prorations count from then. */
  at: number;
  /** The invoice's number in the customer's sequence. */
  number: string;
  /** The subscription's discount and tax. */
  adjustments?: Adjustments;
}

export function buildProrationInvoice({
  before,
  after,
  customer,
  at,
  number,
  adjustments,
}: PlanSwitch): Stripe.Invoice {
  const { current_period_start: start, current_period_end: end, quantity = 1 } = itemOf(before);
  const left = end > start ? Math.max(0, end - at) / (end - start) : 0;
  const period = { start: at, end };
  const from = itemOf(before).price;
  const to = itemOf(after).price;
  const amount = (price: Stripe.Price) =>
    Math.round((price.unit_amount ?? 0) * (quantity ?? 1) * left);
  return buildInvoice({
    subscription: after,
    customer,
    reason: 'subscription_update',
    paid: true,
    at,
    number,
    adjustments,
    lines: (invoiceId) => [
      lineOf(invoiceId, before, {
        price: from,
        amount: -amount(from),
        description: `Unused time on ${titleOf(from)} after ${new Date(at * 1000).toUTCString()}`,
        period,
      }),
      lineOf(invoiceId, after, {
        price: to,
        amount: amount(to),
        description: `Remaining time on ${titleOf(to)} after ${new Date(at * 1000).toUTCString()}`,
        period,
      }),
    ],
  });
}
