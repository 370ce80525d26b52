// What the simulator sells with besides a price: one test promotion code, SAVE20 (the coupon
// sim_20_off, 20 % off every invoice, forever), the discount a redeemed code becomes, and a
// simulated automatic tax (10 % on a simulated US address: Stripe Tax decides by the customer's
// address; here every address is taxed alike). adjustmentsOf and sessionAdjustments say what a
// charge (charge.ts) deducts and adds, from a subscription's or a session's discount and tax.
import type Stripe from 'stripe';
import { newId } from '../ids.ts';
import type { Documents } from '../store.ts';
import { nowSeconds } from '../time.ts';
import type { AppliedDiscount, Adjustments } from './charge.ts';

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

/** A coupon, and the promotion code redeemed for it, as a charge applies them (charge.ts). */
export async function appliedDiscount(
  docs: Documents,
  { coupon, promotionCode }: { coupon: string; promotionCode: string | null },
  id: string | null,
): Promise<AppliedDiscount> {
  const code =
    promotionCode === null
      ? null
      : ((await docs.get<Stripe.PromotionCode>('promotion_code', promotionCode))?.data ?? null);
  return {
    id,
    coupon: (await docs.require<Stripe.Coupon>('coupon', coupon)).data,
    promotionCode: code,
  };
}

/** A stored discount (di_...) as a charge applies it; null when there is none by that id. */
export async function discountById(docs: Documents, id: string): Promise<AppliedDiscount | null> {
  const discount = (await docs.get<Stripe.Discount>('discount', id))?.data;
  if (discount === undefined) return null;
  const promotionCode = discount.promotion_code;
  return appliedDiscount(
    docs,
    {
      coupon: String(discount.source.coupon),
      promotionCode: promotionCode == null ? null : String(promotionCode),
    },
    discount.id,
  );
}

const taxPercentOf = (automaticTax: { enabled: boolean }): number | null =>
  automaticTax.enabled ? SIMULATED_TAX.percent : null;

/** The subscription's discount and automatic tax, as each of its invoices applies them. */
export async function adjustmentsOf(
  docs: Documents,
  subscription: Stripe.Subscription,
): Promise<Adjustments> {
  const [first] = subscription.discounts;
  return {
    discount:
      first === undefined
        ? null
        : await discountById(docs, typeof first === 'string' ? first : first.id),
    taxPercent: taxPercentOf(subscription.automatic_tax),
  };
}

/** The checkout session's code or coupon and automatic tax, as its first invoice will apply them. */
export async function sessionAdjustments(
  docs: Documents,
  session: Stripe.Checkout.Session,
): Promise<Adjustments> {
  const [first] = session.discounts ?? [];
  return {
    discount:
      first?.coupon == null
        ? null
        : await appliedDiscount(
            docs,
            {
              coupon: String(first.coupon),
              promotionCode: first.promotion_code == null ? null : String(first.promotion_code),
            },
            null,
          ),
    taxPercent: taxPercentOf(session.automatic_tax),
  };
}
