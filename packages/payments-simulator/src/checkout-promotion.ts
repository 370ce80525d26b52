// The hosted checkout page's promotion code field, on a session created with
// allow_promotion_codes: a code typed in (any case) becomes the session's discount and its amounts
// follow; an unknown one leaves the session as it was. No event: Stripe sends none for this.
import type Stripe from 'stripe';
import { mutate, type Outcome, type SimContext } from './context.ts';
import { AUTOMATIC } from './events.ts';
import {
  hasTrial,
  sessionDiscounts,
  totalsOf,
  type SessionDiscount,
  type SessionExtra,
} from './objects/checkout.ts';
import { couponOf, findPromotionCode, percentOff, SIMULATED_TAX } from './objects/offers.ts';

type Session = Stripe.Checkout.Session;

/**
 * The page's promotion code field, on a session with allow_promotion_codes: redeems `code` (any
 * case) or, with null, removes the one applied; the amounts follow. `applied` is false for a code
 * that is not an active promotion code (the session is left as it was).
 */
export function applyPromotionCode(
  ctx: SimContext,
  id: string,
  code: string | null,
): Promise<Outcome<{ session: Session; applied: boolean }>> {
  return mutate(ctx, AUTOMATIC, async (unit) => {
    const stored = await unit.docs.require<Session>('checkout.session', id, { lock: true });
    if (stored.data.status !== 'open' || stored.data.allow_promotion_codes !== true)
      return { session: stored.data, applied: false };
    const found = code === null ? null : await findPromotionCode(unit.docs, code);
    if (code !== null && found === null) return { session: stored.data, applied: false };
    const discount: SessionDiscount | null =
      found === null ? null : { coupon: couponOf(found), promotionCode: found.id };
    const extra = stored.extra as unknown as SessionExtra;
    const line = extra.line_items[0]!;
    const price = (await unit.docs.require<Stripe.Price>('price', line.price)).data;
    const session: Session = {
      ...stored.data,
      discounts: sessionDiscounts(discount),
      ...totalsOf((price.unit_amount ?? 0) * line.quantity, hasTrial(extra.subscription_data), {
        discount:
          discount === null
            ? null
            : { id: '', percentOff: await percentOff(unit.docs, discount.coupon) },
        taxPercent: stored.data.automatic_tax.enabled ? SIMULATED_TAX.percent : null,
      }),
    };
    await unit.docs.save('checkout.session', session);
    return { session, applied: true };
  });
}
