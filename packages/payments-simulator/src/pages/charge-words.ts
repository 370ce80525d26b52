// A charge (objects/charge.ts) in the words every page uses: a coupon named as Stripe names it, with
// how long it lasts ("SAVE20 (20% off forever)"), and what a period costs once it is applied.
import type Stripe from 'stripe';
import type { AppliedDiscount, LineCharge } from '../objects/charge.ts';
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
export function perMonth(line: LineCharge, currency: string): Html {
  const list =
    line.discount === 0 ? '' : html`<s class="muted">${money(line.amount, currency)}</s> `;
  const tax = line.tax === 0 ? '' : ` + ${money(line.tax, currency)} tax`;
  return html`${list}<strong>${money(afterDiscount(line), currency)}</strong> per month${tax}`;
}
