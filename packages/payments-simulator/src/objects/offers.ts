// What the simulator sells with besides a price: one test promotion code, SAVE20 (the coupon
// sim_20_off, 20 % off every invoice, forever), the discount a redeemed code becomes, and a
// simulated automatic tax (10 % on a simulated US address: Stripe Tax decides by the customer's
// address; here every address is taxed alike). adjustmentsOf tells an invoice what to deduct and
// to add, from its subscription's discount and automatic_tax.
import type Stripe from 'stripe';
import { newId } from '../ids.ts';
import type { Documents } from '../store.ts';
import { nowSeconds } from '../time.ts';

export const TEST_PROMOTION_CODE = 'SAVE20';
const COUPON_ID = 'sim_20_off';
const PROMOTION_CODE_ID = 'promo_sim_save20';
const PERCENT_OFF = 20;

export const SIMULATED_TAX = { rate: 'txr_simulated', percent: 10, name: 'Sales tax' } as const;
/** The billing address Checkout "collects" when it may write one onto the customer. */
export const SIMULATED_ADDRESS: Stripe.Address = {
  city: 'South San Francisco',
  country: 'US',
  line1: '354 Oyster Point Blvd',
  line2: null,
  postal_code: '94080',
  state: 'CA',
};

function buildCoupon(created: number): Stripe.Coupon {
  return {
    id: COUPON_ID,
    object: 'coupon',
    amount_off: null,
    created,
    currency: null,
    duration: 'forever',
    duration_in_months: null,
    livemode: false,
    max_redemptions: null,
    metadata: {},
    name: `${PERCENT_OFF}% off`,
    percent_off: PERCENT_OFF,
    redeem_by: null,
    times_redeemed: 0,
    valid: true,
  };
}

function buildPromotionCode(created: number): Stripe.PromotionCode {
  return {
    id: PROMOTION_CODE_ID,
    object: 'promotion_code',
    active: true,
    code: TEST_PROMOTION_CODE,
    created,
    customer: null,
    customer_account: null,
    expires_at: null,
    livemode: false,
    max_redemptions: null,
    metadata: {},
    promotion: { coupon: COUPON_ID, type: 'coupon' },
    restrictions: {
      first_time_transaction: false,
      minimum_amount: null,
      minimum_amount_currency: null,
    },
    times_redeemed: 0,
  };
}

/** Creates the test coupon and promotion code once; later starts keep their redemption counts. */
export async function seedOffers(docs: Documents): Promise<void> {
  const created = nowSeconds();
  if ((await docs.get('coupon', COUPON_ID)) === null)
    await docs.save('coupon', buildCoupon(created));
  if ((await docs.get('promotion_code', PROMOTION_CODE_ID)) === null)
    await docs.save('promotion_code', buildPromotionCode(created));
}

/** The active promotion code a person typed, matched without regard to case (as Stripe does). */
export async function findPromotionCode(
  docs: Documents,
  code: string,
): Promise<Stripe.PromotionCode | null> {
  const { data } = await docs.list<Stripe.PromotionCode>(
    'promotion_code',
    { ref: code.trim().toUpperCase(), status: ['active'] },
    { limit: 1 },
  );
  return data[0]?.data ?? null;
}

export const couponOf = (code: Stripe.PromotionCode): string =>
  typeof code.promotion.coupon === 'string' ? code.promotion.coupon : code.promotion.coupon!.id;

export interface NewDiscount {
  coupon: string;
  promotionCode: string | null;
  customer: string;
  subscription: string;
  checkoutSession: string | null;
  start: number;
}

export function buildDiscount(input: NewDiscount): Stripe.Discount {
  return {
    id: newId('di_'),
    object: 'discount',
    checkout_session: input.checkoutSession,
    customer: input.customer,
    customer_account: null,
    end: null,
    invoice: null,
    invoice_item: null,
    promotion_code: input.promotionCode,
    source: { coupon: input.coupon, type: 'coupon' },
    start: input.start,
    subscription: input.subscription,
    subscription_item: null,
  };
}

/** Counts a redemption on the coupon and the promotion code. */
export async function redeem(docs: Documents, discount: Stripe.Discount): Promise<void> {
  const coupon = await docs.get<Stripe.Coupon>('coupon', String(discount.source.coupon), {
    lock: true,
  });
  if (coupon !== null)
    await docs.save('coupon', { ...coupon.data, times_redeemed: coupon.data.times_redeemed + 1 });
  if (typeof discount.promotion_code !== 'string') return;
  const code = await docs.get<Stripe.PromotionCode>('promotion_code', discount.promotion_code, {
    lock: true,
  });
  if (code !== null)
    await docs.save('promotion_code', {
      ...code.data,
      times_redeemed: code.data.times_redeemed + 1,
    });
}

/** What an invoice deducts (a percentage off, with the discount's id) and adds (tax). */
export interface Adjustments {
  discount: { id: string; percentOff: number } | null;
  taxPercent: number | null;
}

export const NO_ADJUSTMENTS: Adjustments = { discount: null, taxPercent: null };

/** A coupon's percentage off, for the session or the subscription that holds it. */
export async function percentOff(docs: Documents, couponId: string): Promise<number> {
  return (await docs.get<Stripe.Coupon>('coupon', couponId))?.data.percent_off ?? 0;
}

/** The subscription's discount and automatic tax, as each of its invoices applies them. */
export async function adjustmentsOf(
  docs: Documents,
  subscription: Stripe.Subscription,
): Promise<Adjustments> {
  const [first] = subscription.discounts;
  const discount =
    first === undefined
      ? null
      : (await docs.get<Stripe.Discount>('discount', typeof first === 'string' ? first : first.id))
          ?.data;
  return {
    discount:
      discount == null
        ? null
        : { id: discount.id, percentOff: await percentOff(docs, String(discount.source.coupon)) },
    taxPercent: subscription.automatic_tax.enabled ? SIMULATED_TAX.percent : null,
  };
}

/** An amount's discount and tax (on what is left after the discount), in cents; none on a credit. */
export function adjust(
  amount: number,
  { discount, taxPercent }: Adjustments,
): { discount: number; tax: number } {
  if (amount <= 0) return { discount: 0, tax: 0 };
  const off = discount === null ? 0 : Math.round((amount * discount.percentOff) / 100);
  return {
    discount: off,
    tax: taxPercent === null ? 0 : Math.round(((amount - off) * taxPercent) / 100),
  };
}
