// Credit packs for the one-time payment tests: the simulator's packs, a pack's checkout opened as
// the service opens one, and the control that settles or fails a bank debit.
import type Stripe from 'stripe';
import { API_KEY } from './harness.ts';

export const PACKS = new Map([
  ['small', 'price_sim_credits_small'],
  ['large', 'price_sim_credits_large'],
]);

/** A credit pack's checkout for a new customer, as the service opens one. */
export async function packCheckout(
  stripe: Stripe,
  orgId: string,
  price = 'price_sim_credits_small',
) {
  const customer = await stripe.customers.create({ email: `${orgId}@example.com` });
  const pack = price.replace('price_sim_credits_', '');
  const session = await stripe.checkout.sessions.create({
    mode: 'payment',
    customer: customer.id,
    client_reference_id: orgId,
    line_items: [{ price, quantity: 1 }],
    metadata: { credit_pack: pack, org_id: orgId },
    payment_intent_data: { metadata: { credit_pack: pack, org_id: orgId } },
    success_url: 'https://app.example.test/credits/success?session_id={CHECKOUT_SESSION_ID}',
    cancel_url: 'https://app.example.test/credits/cancel',
  });
  return { customer, session };
}

/** POST /_sim/payment_intents/:id/:action (settle or fail) with the API key. */
export async function decide(url: string, intentId: string, action: string) {
  const response = await fetch(`${url}/_sim/payment_intents/${intentId}/${action}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_KEY}` },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
