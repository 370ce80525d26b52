// A charge (objects/charge.ts) in the words every page uses: a coupon named as Stripe names it, with
// how long it lasts ("SAVE20 (20% off forever)"), and what a period (a month, a year: the price's
// interval) costs once it is applied. A plan's price is said one way (planAt) on the buttons that
// offer it and in the notices that report it, so a button never promises what its notice denies.
import type Stripe from 'stripe';
import { periodCharge } from '../next-charge.ts';
import { planTitle, unitOf } from '../objects/catalog.ts';
import type { Adjustments, AppliedDiscount, LineCharge } from '../objects/charge.ts';
import { html, money, type Html } from './layout.ts';

/** How long a coupon's discount lasts, in the words of Stripe's coupon durations. */
export function couponTerm(coupon: Stripe.Coupon): string {
  if (coupon.duration === 'repeating') return `for ${coupon.duration_in_months} months`;
  return coupon.duration === 'once' ? 'once' : 'forever';
}

/** "SAVE20 (20% off forever)": the code (else the coupon's name), what it takes off, how long. */
export function discountName({ coupon, promotionCode }: AppliedDiscount): string {
  const off = coupon.percent_off === null ? '' : `${coupon.percent_off}% off `;
  return `${promotionCode?.code ?? coupon.name ?? coupon.id} (${off}${couponTerm(coupon)})`;
}

/** What a period's line comes to after its discount, before tax. */
export const afterDiscount = (line: LineCharge): number => line.amount - line.discount;

/** "~~$15.00~~ $12.00 per month + $1.20 tax": the list price struck out when discounted. */
export function perPeriod(line: LineCharge, price: Stripe.Price): Html {
  const { currency } = price;
  const list =
    line.discount === 0 ? '' : html`<s class="muted">${money(line.amount, currency)}</s> `;
  const tax = line.tax === 0 ? '' : ` + ${money(line.tax, currency)} tax`;
  return html`${list}<strong>${money(afterDiscount(line), currency)}</strong> per ${unitOf(price)}${tax}`;
}

/**
 * "Team ($39.20/month with SAVE20)", "Pro (3 × $15.00 = $45.00/month + $4.50 tax)": the plan at
 * what each period of it bills, discount and tax included (a proration is said apart).
 */
export function planAt(price: Stripe.Price, quantity: number, adjustments: Adjustments): string {
  const line = periodCharge(price, quantity, adjustments);
  const { currency } = price;
  const each = quantity === 1 ? '' : `${quantity} × ${money(price.unit_amount, currency)} = `;
  const { discount } = adjustments;
  const code =
    discount === null
      ? ''
      : ` with ${discount.promotionCode?.code ?? discount.coupon.name ?? discount.coupon.id}`;
  const tax = line.tax === 0 ? '' : ` + ${money(line.tax, currency)} tax`;
  return `${planTitle(price)} (${each}${money(afterDiscount(line), currency)}/${unitOf(price)}${code}${tax})`;
}
