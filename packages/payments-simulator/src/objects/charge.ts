// Every amount the simulator charges is computed here, and every object and page takes it from
// here: an item's amount (unit amount × quantity), a proration's share of it, and what a line,
// an invoice or a checkout session then comes to with a discount and tax. As at Stripe, the
// discount (a coupon's percentage) comes before tax and tax is on what the discount leaves, each
// rounded to the cent per line. A proration is not discountable (Stripe's flexible billing mode
// with proration_discounts=included: its amount is already net of the discount), and is taxed,
// a credit's tax being negative.
import type Stripe from 'stripe';

/** A coupon applied to a subscription (or, before it is paid, to a checkout session). */
export interface AppliedDiscount {
  /** The discount's id (di_...); null on a checkout session, which has none until it is paid. */
  id: string | null;
  coupon: Stripe.Coupon;
  /** The promotion code redeemed for it, if one was. */
  promotionCode: Stripe.PromotionCode | null;
}

/** What an invoice deducts and adds: the subscription's (or session's) discount and tax rate. */
export interface Adjustments {
  discount: AppliedDiscount | null;
  taxPercent: number | null;
}

export const NO_ADJUSTMENTS: Adjustments = { discount: null, taxPercent: null };

/** A line to charge: its amount before discount and tax, and whether the discount applies. */
export interface Billable {
  amount: number;
  discountable: boolean;
}

export interface LineCharge extends Billable {
  discount: number;
  tax: number;
}

export interface Charge {
  lines: LineCharge[];
  subtotal: number;
  discount: number;
  /** The subtotal less the discount: what the tax is on. */
  totalExcludingTax: number;
  tax: number;
  total: number;
}

/** A line of `amount`: a period's is discountable; a proration's is already net of the discount. */
export const billable = (amount: number, { proration = false } = {}): Billable => ({
  amount,
  discountable: !proration,
});

/** What an item bills for a whole period. */
export const itemAmount = (price: Stripe.Price, quantity: number): number =>
  (price.unit_amount ?? 0) * quantity;

/** `percent` of `amount` cents, rounded half away from zero, so a credit mirrors its charge. */
const percentOf = (amount: number, percent: number): number =>
  Math.sign(amount) * Math.round((Math.abs(amount) * percent) / 100);

const percentOff = ({ discount }: Adjustments): number => discount?.coupon.percent_off ?? 0;

/** The part of `amount` (an item's, for a whole period) that `share` of the period bills, net of the discount. */
export function proratedAmount(amount: number, share: number, adjustments: Adjustments): number {
  return Math.round(amount * share * (1 - percentOff(adjustments) / 100));
}

export function lineCharge(line: Billable, adjustments: Adjustments): LineCharge {
  const discount =
    line.discountable && line.amount > 0 ? percentOf(line.amount, percentOff(adjustments)) : 0;
  const tax =
    adjustments.taxPercent === null ? 0 : percentOf(line.amount - discount, adjustments.taxPercent);
  return { ...line, discount, tax };
}

const sum = (amounts: number[]): number => amounts.reduce((total, each) => total + each, 0);

/** What `lines` come to, line by line and in all. */
export function chargeOf(lines: readonly Billable[], adjustments: Adjustments): Charge {
  const charged = lines.map((line) => lineCharge(line, adjustments));
  const subtotal = sum(charged.map((line) => line.amount));
  const discount = sum(charged.map((line) => line.discount));
  const tax = sum(charged.map((line) => line.tax));
  return {
    lines: charged,
    subtotal,
    discount,
    totalExcludingTax: subtotal - discount,
    tax,
    total: subtotal - discount + tax,
  };
}
