// A bank debit's outcome, days after the checkout (checkout-payment.ts), brought on by a control or
// the dashboard: it settles (charge.succeeded, payment_intent.succeeded, then
// checkout.session.async_payment_succeeded with the session now paid) or the bank returns it
// (charge.failed, payment_intent.payment_failed, then checkout.session.async_payment_failed; the
// session stays unpaid and the intent wants another payment method).
import type Stripe from 'stripe';
import type { IntentExtra } from './checkout-payment.ts';
import { mutate, type Outcome, type SimContext, type Unit } from './context.ts';
import { invalidParam } from './errors.ts';
import { AUTOMATIC } from './events.ts';
import { failedCharge, settledCharge } from './objects/payment-charges.ts';
import { failedIntent, settledIntent } from './objects/payment-intents.ts';

type Session = Stripe.Checkout.Session;

export interface Settled {
  payment_intent: Stripe.PaymentIntent;
  charge: Stripe.Charge;
  /** The checkout session that took the payment, if one did. */
  session: Session | null;
}

/** The processing intent, its pending charge and its session, each locked. */
async function pending(unit: Unit, id: string): Promise<Settled> {
  const stored = await unit.docs.require<Stripe.PaymentIntent>('payment_intent', id, {
    lock: true,
  });
  const intent = stored.data;
  if (intent.status !== 'processing')
    throw invalidParam(
      `PaymentIntent ${id} is ${intent.status}: only a processing payment (a bank debit not settled yet) can settle or fail.`,
    );
  const charge = await unit.docs.require<Stripe.Charge>('charge', String(intent.latest_charge), {
    lock: true,
  });
  const sessionId = (stored.extra as unknown as IntentExtra).checkout_session;
  const session =
    sessionId === null
      ? null
      : await unit.docs.get<Session>('checkout.session', sessionId, { lock: true });
  return { payment_intent: intent, charge: charge.data, session: session?.data ?? null };
}

async function settle(unit: Unit, before: Settled): Promise<Settled> {
  const charge = settledCharge(before.charge);
  const intent = settledIntent(before.payment_intent);
  const session = before.session && { ...before.session, payment_status: 'paid' as const };
  await unit.docs.save('charge', charge);
  await unit.docs.save('payment_intent', intent);
  await unit.emit('charge.succeeded', charge);
  await unit.emit('payment_intent.succeeded', intent);
  if (session !== null) {
    await unit.docs.save('checkout.session', session);
    await unit.emit('checkout.session.async_payment_succeeded', session);
  }
  return { payment_intent: intent, charge, session };
}

async function fail(unit: Unit, before: Settled): Promise<Settled> {
  const charge = failedCharge(before.charge);
  const intent = failedIntent(before.payment_intent, charge);
  await unit.docs.save('charge', charge);
  await unit.docs.save('payment_intent', intent);
  await unit.emit('charge.failed', charge);
  await unit.emit('payment_intent.payment_failed', intent);
  if (before.session !== null)
    await unit.emit('checkout.session.async_payment_failed', before.session);
  return { payment_intent: intent, charge, session: before.session };
}

/** What a control may do to a processing payment: settle it, or have the bank return it. */
export const SETTLEMENTS = { settle, fail } as const;
export type Settlement = keyof typeof SETTLEMENTS;

/** Settles or fails the processing payment `id`, as the bank does on its own (no API request). */
export function settlePayment(
  ctx: SimContext,
  id: string,
  settlement: Settlement,
): Promise<Outcome<Settled>> {
  return mutate(ctx, AUTOMATIC, async (unit) =>
    SETTLEMENTS[settlement](unit, await pending(unit, id)),
  );
}
