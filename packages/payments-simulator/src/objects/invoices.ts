// Subscription invoices: one line for the item's period (or the given lines, e.g. a plan switch's
// prorations), linked to the subscription under `parent.subscription_details` as the current API
// does (no top-level `subscription` field); and a new invoice as its first two events show it.
import type Stripe from 'stripe';
import { newId } from '../ids.ts';
import { decimal, tierTitle } from './catalog.ts';
import {
  billable,
  chargeOf,
  itemAmount,
  NO_ADJUSTMENTS,
  type Adjustments,
  type LineCharge,
} from './charge.ts';
import { SIMULATED_TAX } from './offers.ts';
import { customerIdOf, itemOf } from './subscriptions.ts';

export interface NewInvoice {
  subscription: Stripe.Subscription;
  customer: Stripe.Customer | null;
  reason: 'subscription_create' | 'subscription_cycle' | 'subscription_update';
  paid: boolean;
  at: number;
  number: string;
  /** The invoice's lines when not the item's whole period (see proration.ts). */
  lines?: (invoiceId: string) => Stripe.InvoiceLineItem[];
  /** The subscription's discount and automatic tax (charge.ts); none when not given. */
  adjustments?: Adjustments;
}

/** What a line bills when it is not the item's whole period at its price. */
export interface LinePart {
  price: Stripe.Price;
  amount: number;
  description: string;
  period: { start: number; end: number };
  /** The quantity it bills for; the item's when not given. */
  quantity?: number;
  /** The pending invoice item it bills (a proration made earlier), if any. */
  invoiceItem?: string;
  /** Whether it prorates a change within the period (not a trial's line). */
  proration: boolean;
}

function money(amount: number): string {
  return `$${(amount / 100).toFixed(2)}`;
}

/** The lines of a trial's first invoice: the trial's period, at nothing. */
export function trialLines(
  subscription: Stripe.Subscription,
  price: Stripe.Price,
  period: { start: number; end: number },
): (invoiceId: string) => Stripe.InvoiceLineItem[] {
  const description = `Trial period for ${tierTitle(price.lookup_key ?? price.id)}`;
  return (invoiceId) => [
    lineOf(invoiceId, subscription, { price, amount: 0, description, period, proration: false }),
  ];
}

export function lineOf(
  invoiceId: string,
  subscription: Stripe.Subscription,
  part?: LinePart,
): Stripe.InvoiceLineItem {
  const item = itemOf(subscription);
  const price = part?.price ?? item.price;
  const quantity = part?.quantity ?? item.quantity ?? 1;
  const amount = part?.amount ?? itemAmount(price, quantity);
  const product = typeof price.product === 'string' ? price.product : price.product.id;
  const tier = price.lookup_key ?? product;
  return {
    id: newId('il_'),
    object: 'line_item',
    amount,
    currency: price.currency,
    description:
      part?.description ??
      `${quantity} × ${tierTitle(tier)} (at ${money(price.unit_amount ?? 0)} / month)`,
    discount_amounts: [],
    discountable: billable(amount, { proration: part?.proration }).discountable,
    discounts: [],
    invoice: invoiceId,
    livemode: false,
    metadata: {},
    parent: {
      invoice_item_details: null,
      subscription_item_details: {
        invoice_item: part?.invoiceItem ?? null,
        proration: part?.proration ?? false,
        proration_details: { credited_items: null },
        subscription: subscription.id,
        subscription_item: item.id,
      },
      type: 'subscription_item_details',
    },
    period: part?.period ?? { end: item.current_period_end, start: item.current_period_start },
    pretax_credit_amounts: [],
    pricing: {
      price_details: { price: price.id, product },
      type: 'price_details',
      unit_amount_decimal: price.unit_amount_decimal,
    },
    quantity,
    quantity_decimal: decimal(quantity),
    subscription: subscription.id,
    subtotal: amount,
    taxes: [],
  };
}

/**
 * A line with its share of the discount (the subscription's, an invoice-level one: the line
 * names it in discount_amounts, not in its own discounts) and its tax.
 */
function adjusted(
  line: Stripe.InvoiceLineItem,
  charge: LineCharge,
  adjustments: Adjustments,
): Stripe.InvoiceLineItem {
  const id = adjustments.discount?.id ?? null;
  return {
    ...line,
    discount_amounts: id === null ? [] : [{ amount: charge.discount, discount: id }],
    taxes:
      adjustments.taxPercent === null
        ? []
        : [simulatedTax(charge.tax, charge.amount - charge.discount)],
  };
}

/** The simulated tax on an amount (a line's or an invoice's), as Stripe reports a tax rate's. */
function simulatedTax(amount: number, taxableAmount: number) {
  return {
    amount,
    tax_behavior: 'exclusive' as const,
    tax_rate_details: { tax_rate: SIMULATED_TAX.rate },
    taxability_reason: 'standard_rated' as const,
    taxable_amount: taxableAmount,
    type: 'tax_rate_details' as const,
  };
}

export function buildInvoice(input: NewInvoice): Stripe.Invoice {
  const id = newId('in_');
  const adjustments = input.adjustments ?? NO_ADJUSTMENTS;
  const raw = input.lines?.(id) ?? [lineOf(id, input.subscription)];
  const charge = chargeOf(
    raw.map((line) => ({ amount: line.amount, discountable: line.discountable })),
    adjustments,
  );
  const lines = raw.map((each, i) => adjusted(each, charge.lines[i]!, adjustments));
  // The item's period is the last line's: any prorations billed with it come first.
  const line = lines.at(-1)!;
  const { subtotal, discount, tax, total } = charge;
  // A credit (a switch to a cheaper plan) is not charged: nothing is due.
  const due = Math.max(0, total);
  return {
    id,
    object: 'invoice',
    account_country: 'US',
    account_name: 'Payments Simulator',
    account_tax_ids: null,
    amount_due: due,
    amount_overpaid: 0,
    amount_paid: input.paid ? due : 0,
    amount_remaining: input.paid ? 0 : due,
    amount_shipping: 0,
    application: null,
    attempt_count: 1,
    attempted: true,
    auto_advance: !input.paid,
    automatic_tax:
      adjustments.taxPercent === null
        ? { disabled_reason: null, enabled: false, liability: null, provider: null, status: null }
        : {
            disabled_reason: null,
            enabled: true,
            liability: { type: 'self' },
            provider: 'stripe',
            status: 'complete',
          },
    automatically_finalizes_at: null,
    billing_reason: input.reason,
    collection_method: 'charge_automatically',
    created: input.at,
    currency: line.currency,
    custom_fields: null,
    customer: customerIdOf(input.subscription),
    customer_account: null,
    customer_address: null,
    customer_email: input.customer?.email ?? null,
    customer_name: input.customer?.name ?? null,
    customer_phone: null,
    customer_shipping: null,
    customer_tax_exempt: 'none',
    default_payment_method: null,
    default_source: null,
    default_tax_rates: [],
    description: null,
    discounts: adjustments.discount?.id == null ? [] : [adjustments.discount.id],
    due_date: null,
    effective_at: input.at,
    ending_balance: 0,
    footer: null,
    from_invoice: null,
    hosted_invoice_url: null,
    invoice_pdf: null,
    issuer: { type: 'self' },
    last_finalization_error: null,
    latest_revision: null,
    lines: { object: 'list', data: lines, has_more: false, url: `/v1/invoices/${id}/lines` },
    livemode: false,
    metadata: {},
    next_payment_attempt: input.paid ? null : input.at + 3 * 86_400,
    number: input.number,
    on_behalf_of: null,
    parent: {
      quote_details: null,
      subscription_details: {
        metadata: input.subscription.metadata,
        subscription: input.subscription.id,
      },
      type: 'subscription_details',
    },
    payment_settings: {
      default_mandate: null,
      payment_method_options: null,
      payment_method_types: null,
    },
    period_end: line.period.end,
    period_start: line.period.start,
    post_payment_credit_notes_amount: 0,
    pre_payment_credit_notes_amount: 0,
    receipt_number: null,
    rendering: null,
    shipping_cost: null,
    shipping_details: null,
    starting_balance: 0,
    statement_descriptor: null,
    status: input.paid ? 'paid' : 'open',
    status_transitions: {
      finalized_at: input.at,
      marked_uncollectible_at: null,
      paid_at: input.paid ? input.at : null,
      voided_at: null,
    },
    subtotal,
    subtotal_excluding_tax: subtotal,
    test_clock: null,
    total,
    total_discount_amounts:
      adjustments.discount?.id == null
        ? []
        : [{ amount: discount, discount: adjustments.discount.id }],
    total_excluding_tax: charge.totalExcludingTax,
    total_pretax_credit_amounts: [],
    total_taxes:
      adjustments.taxPercent === null ? [] : [simulatedTax(tax, charge.totalExcludingTax)],
    webhooks_delivered_at: input.at,
  };
}

/** The open invoice of a failed renewal, paid now (a recovered payment). */
export function markPaid(invoice: Stripe.Invoice, at: number): Stripe.Invoice {
  return {
    ...invoice,
    amount_paid: invoice.amount_due,
    amount_remaining: 0,
    attempt_count: invoice.attempt_count + 1,
    auto_advance: false,
    next_payment_attempt: null,
    status: 'paid',
    status_transitions: { ...invoice.status_transitions, paid_at: at },
  };
}

/** A new invoice as invoice.created (draft) and invoice.finalized (open) show it. */
export function earlierStages(invoice: Stripe.Invoice): {
  draft: Stripe.Invoice;
  open: Stripe.Invoice;
} {
  const open: Stripe.Invoice = {
    ...invoice,
    status: 'open',
    amount_paid: 0,
    amount_remaining: invoice.amount_due,
    status_transitions: { ...invoice.status_transitions, paid_at: null },
  };
  const draft: Stripe.Invoice = {
    ...open,
    status: 'draft',
    number: null,
    status_transitions: { ...open.status_transitions, finalized_at: null },
  };
  return { draft, open };
}
