// The hosted checkout page's promotion code field, on a session created with
// allow_promotion_codes: a code typed in (any case) becomes the session's discount and its amounts
// follow; an unknown one leaves the session as it was. No event: Stripe sends none for this.
import type Stripe from 'stripe';
import { mutate, type Outcome, type SimContext } from './context.ts';
import { AUTOMATIC } from './events.ts';
import {
  dueToday,
  hasTrial,
  sessionDiscounts,
  totalsOf,
  type SessionExtra,
} from './objects/checkout.ts';
import { appliedDiscount, couponOf, findPromotionCode, SIMULATED_TAX } from './objects/offers.ts';

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
    const discount =
      found === null
        ? null
        : await appliedDiscount(
            unit.docs,
            { coupon: couponOf(found), promotionCode: found.id },
            null,
          );
    const extra = stored.extra as unknown as SessionExtra;
    const line = extra.line_items[0]!;
    const price = (await unit.docs.require<Stripe.Price>('price', line.price)).data;
    const due = dueToday({ price, quantity: line.quantity }, hasTrial(extra.subscription_data), {
      discount,
      taxPercent: stored.data.automatic_tax.enabled ? SIMULATED_TAX.percent : null,
    });
    const session: Session = {
      ...stored.data,
      discounts: sessionDiscounts(discount),
      ...totalsOf(due),
    };
    await unit.docs.save('checkout.session', session);
    return { session, applied: true };
  });
}
