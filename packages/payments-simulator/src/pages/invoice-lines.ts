// An invoice in the portal's history as Stripe's invoice preview lays it out: each line with its
// description and amount, then the subtotal, each discount once, the tax and the total. A proration is already net of the discount (Stripe's
// prorations are not discountable: the credit is of what was paid), so its line says so; without
// that, a "-$12.00" credit beside a "SAVE20 -$30.00" reads as if the discount were missed.
import type Stripe from 'stripe';
import type { AppliedDiscount } from '../objects/charge.ts';
import { SIMULATED_TAX } from '../objects/offers.ts';
import { discountName } from './charge-words.ts';
import { html, money, type Html } from './layout.ts';

type Discounts = ReadonlyMap<string, AppliedDiscount>;

const row = (label: string, amount: string, style = ''): Html =>
  html`<tr class="${style}"><td>${label}</td><td class="amount">${amount}</td></tr>`;

const nameOf = (discounts: Discounts, id: unknown): string => {
  const applied = discounts.get(String(id));
  return applied === undefined ? 'Discount' : discountName(applied);
};

const proration = (line: Stripe.InvoiceLineItem): boolean =>
  line.parent?.subscription_item_details?.proration === true;

/** A line; a proration says the discount is already in it. */
function lineRow(line: Stripe.InvoiceLineItem, codes: string): Html {
  const net = proration(line) && codes !== '' ? ` (after ${codes})` : '';
  return row(`${line.description ?? ''}${net}`, money(line.amount, line.currency));
}

/** Whether the invoice says more than its total: prorations, a discount, tax, or nothing charged. */
function worthListing(invoice: Stripe.Invoice): boolean {
  return (
    invoice.subtotal === 0 ||
    invoice.lines.data.some(proration) ||
    (invoice.total_discount_amounts ?? []).length > 0 ||
    (invoice.total_taxes ?? []).length > 0
  );
}

/** The invoice's lines and totals, or nothing when its total says it all. */
export function invoiceLines(invoice: Stripe.Invoice, discounts: Discounts): Html | '' {
  if (!worthListing(invoice)) return '';
  const currency = invoice.currency;
  const totalDiscounts = (invoice.total_discount_amounts ?? []).filter((each) => each.amount > 0);
  const codes = totalDiscounts
    .map((each) => {
      const applied = discounts.get(String(each.discount));
      return applied?.promotionCode?.code ?? applied?.coupon.name ?? 'the discount';
    })
    .join(', ');
  const lines = invoice.lines.data.map((line) => lineRow(line, codes));
  const discountTotals = totalDiscounts.map((each) =>
    row(nameOf(discounts, each.discount), `−${money(each.amount, currency)}`, 'discount'),
  );
  const taxes = (invoice.total_taxes ?? []).map((each) =>
    row(SIMULATED_TAX.name, money(each.amount, currency), 'tax'),
  );
  return html`<table class="invoice-lines">${lines}${row('Subtotal', money(invoice.subtotal, currency), 'subtotal')}${discountTotals}${taxes}${row('Total', money(invoice.total, currency), 'total')}</table>`;
}
