// The offer parameters Checkout sessions and subscriptions share, checked as Stripe checks them:
// a trial's settings and days, one discount (a coupon or a promotion code), `customer_update`,
// and the `{enabled}` hashes of `automatic_tax` and `tax_id_collection`.
import type Stripe from 'stripe';
import { invalidParam } from '../errors.ts';
import type { FormObject } from '../form.ts';
import type { CustomerUpdate, SessionDiscount, SubscriptionData } from '../objects/checkout.ts';
import { allowOnly, array, flag, hash, oneOf, text, whole } from '../params.ts';
import type { Documents } from '../store.ts';

const MISSING_PAYMENT_METHOD = ['cancel', 'create_invoice', 'pause'] as const;

/**
 * `trial_settings[end_behavior][missing_payment_method]`, as subscriptions (prefix '') and Checkout
 * (prefix 'subscription_data') take it.
 */
export function missingPaymentMethod(
  data: FormObject,
  prefix: string,
): NonNullable<SubscriptionData['missing_payment_method']> | null {
  const at = (name: string) => (prefix === '' ? name : `${prefix}[${name}]`);
  const settings = hash(data, 'trial_settings', at('trial_settings'));
  if (settings === undefined) return null;
  allowOnly(settings, ['end_behavior'], at('trial_settings'));
  const end = hash(settings, 'end_behavior', `${at('trial_settings')}[end_behavior]`);
  if (end === undefined)
    throw invalidParam(
      `Missing required param: ${at('trial_settings')}[end_behavior].`,
      `${at('trial_settings')}[end_behavior]`,
    );
  allowOnly(end, ['missing_payment_method'], `${at('trial_settings')}[end_behavior]`);
  return (
    oneOf(
      end,
      'missing_payment_method',
      MISSING_PAYMENT_METHOD,
      `${at('trial_settings')}[end_behavior][missing_payment_method]`,
    ) ?? null
  );
}

/** Days of trial (1 to 730), as subscriptions and Checkout take them. */
export const trialDays = (data: FormObject, param: string): number | null =>
  whole(data, 'trial_period_days', { min: 1, max: 730 }, param) ?? null;

/** `discounts[0][coupon]` or `discounts[0][promotion_code]`: at most one, as on Stripe. */
export async function discount(
  docs: Documents,
  params: FormObject,
): Promise<SessionDiscount | null> {
  const list = array(params, 'discounts');
  if (list === undefined || list.length === 0) return null;
  if (list.length > 1)
    throw invalidParam('You may only specify one discount per Checkout Session.', 'discounts[1]');
  const entry = hash({ entry: list[0]! }, 'entry', 'discounts[0]')!;
  allowOnly(entry, ['coupon', 'promotion_code'], 'discounts[0]');
  const coupon = text(entry, 'coupon', { param: 'discounts[0][coupon]' });
  const code = text(entry, 'promotion_code', { param: 'discounts[0][promotion_code]' });
  if ((coupon === undefined) === (code === undefined))
    throw invalidParam(
      'You must provide exactly one of `coupon` or `promotion_code` in `discounts[0]`.',
      'discounts[0]',
    );
  if (coupon !== undefined) {
    await docs.require('coupon', coupon, { param: 'discounts[0][coupon]' });
    return { coupon, promotionCode: null };
  }
  const promotion = (
    await docs.require<Stripe.PromotionCode>('promotion_code', code!, {
      param: 'discounts[0][promotion_code]',
    })
  ).data;
  if (!promotion.active)
    throw invalidParam(
      `The promotion code ${promotion.code} is inactive.`,
      'discounts[0][promotion_code]',
    );
  return { coupon: String(promotion.promotion.coupon), promotionCode: promotion.id };
}

export function customerUpdate(
  params: FormObject,
  customer: string | undefined,
): CustomerUpdate | null {
  const update = hash(params, 'customer_update');
  if (update === undefined) return null;
  if (customer === undefined)
    throw invalidParam('`customer_update` can only be used with `customer`.', 'customer_update');
  allowOnly(update, ['address', 'name', 'shipping'], 'customer_update');
  const choice = (name: keyof CustomerUpdate) =>
    oneOf(update, name, ['auto', 'never'] as const, `customer_update[${name}]`) ?? 'never';
  return { address: choice('address'), name: choice('name'), shipping: choice('shipping') };
}

/** `automatic_tax[enabled]` and `tax_id_collection[enabled]`, each a hash with a flag. */
export function enabled(params: FormObject, name: string, others: string[]): boolean {
  const value = hash(params, name);
  if (value === undefined) return false;
  allowOnly(value, ['enabled', ...others], name);
  const on = flag(value, 'enabled', `${name}[enabled]`);
  if (on === undefined)
    throw invalidParam(`Missing required param: ${name}[enabled].`, `${name}[enabled]`);
  return on;
}
