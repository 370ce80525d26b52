// Prorations, when the subscription's item changes within its period (another price, another
// quantity): a credit for the unused time on what the item was and a charge for the remaining time
// on what it is, each for that side's price and quantity over the share of the period left, net
// of the subscription's discount (charge.ts). They are billed at once on an invoice of their own
// ("prorate and invoice immediately", Stripe's always_invoice), or kept as pending invoice items
// that the next invoice bills (Stripe's default, create_prorations).
import type Stripe from 'stripe';
import { newId } from '../ids.ts';
import { decimal, tierTitle } from './catalog.ts';
import { itemAmount, proratedAmount, type Adjustments } from './charge.ts';
import { buildInvoice, lineOf, type LinePart } from './invoices.ts';
import { customerIdOf, itemOf } from './subscriptions.ts';

const titleOf = (price: Stripe.Price): string =>
  tierTitle(price.lookup_key ?? price.nickname ?? price.id);

/**
 * The credit and the charge for changing the item from `before` to `after` at `at` (Unix
 * seconds), with the subscription's `adjustments`; a side of quantity 0 bills nothing and is left
 * out.
 */
export function prorationParts(
  before: Stripe.Subscription,
  after: Stripe.Subscription,
  at: number,
  adjustments: Adjustments,
): LinePart[] {
  const { current_period_start: start, current_period_end: end } = itemOf(before);
  const left = end > start ? Math.max(0, end - at) / (end - start) : 0;
  const period = { start: at, end };
  const when = new Date(at * 1000).toUTCString();
  const side = (subscription: Stripe.Subscription, words: string, sign: 1 | -1): LinePart => {
    const { price, quantity: given } = itemOf(subscription);
    const quantity = given ?? 1;
    const times = quantity === 1 ? '' : `${quantity} × `;
    return {
      price,
      quantity,
      amount: sign * proratedAmount(itemAmount(price, quantity), left, adjustments),
      description: `${words} ${times}${titleOf(price)} after ${when}`,
      period,
      proration: true,
    };
  };
  return [side(before, 'Unused time on', -1), side(after, 'Remaining time on', 1)].filter(
    (part) => part.quantity !== 0,
  );
}

/** A proration kept for the next invoice, as Stripe's pending invoice item. */
export function pendingInvoiceItem(
  subscription: Stripe.Subscription,
  part: LinePart,
  at: number,
): Stripe.InvoiceItem {
  const { price, quantity = 1 } = part;
  const product = typeof price.product === 'string' ? price.product : price.product.id;
  return {
    id: newId('ii_'),
    object: 'invoiceitem',
    amount: part.amount,
    currency: price.currency,
    customer: customerIdOf(subscription),
    customer_account: null,
    date: at,
    description: part.description,
    discountable: false,
    discounts: [],
    invoice: null,
    livemode: false,
    metadata: {},
    net_amount: part.amount,
    parent: {
      subscription_details: {
        subscription: subscription.id,
        subscription_item: itemOf(subscription).id,
      },
      type: 'subscription_details',
    },
    period: part.period,
    pricing: {
      price_details: { price: price.id, product },
      type: 'price_details',
      unit_amount_decimal: price.unit_amount_decimal,
    },
    proration: true,
    proration_details: { credited_items: null, discount_amounts: [] },
    quantity,
    quantity_decimal: decimal(quantity),
    tax_rates: [],
    test_clock: null,
  };
}

export interface ProrationInvoice {
  subscription: Stripe.Subscription;
  customer: Stripe.Customer;
  /** Unix seconds: when it is made (and paid). */
  at: number;
  /** The invoice's number in the customer's sequence. */
  number: string;
  /** What it bills: prorations still pending, then the change's own. */
  parts: LinePart[];
  /** The subscription's discount and tax. */
  adjustments?: Adjustments;
}

/** The invoice that bills prorations at once, paid. */
export function buildProrationInvoice({
  subscription,
  customer,
  at,
  number,
  parts,
  adjustments,
}: ProrationInvoice): Stripe.Invoice {
  return buildInvoice({
    subscription,
    customer,
    reason: 'subscription_update',
    paid: true,
    at,
    number,
    adjustments,
    lines: (invoiceId) => parts.map((part) => lineOf(invoiceId, subscription, part)),
  });
}
