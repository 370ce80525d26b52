// Refunding a one-time payment: part or all of what its charge has left, by the API
// (POST /v1/refunds, naming the charge or the payment intent) or the dashboard. The charge keeps
// the sum refunded so far (`amount_refunded`) and is `refunded` once nothing is left; each refund
// sends refund.created, then charge.refunded with the charge as it now is. More than is left is
// refused with Stripe's words.
import type Stripe from 'stripe';
import { mutate, type Outcome, type SimContext } from './context.ts';
import { invalidParam } from './errors.ts';
import { previousAttributes, type Trigger } from './events.ts';
import { money } from './pages/layout.ts';
import { refundable, refundedCharge } from './objects/payment-charges.ts';
import { buildRefund } from './objects/refunds.ts';
import type { Documents } from './store.ts';
import { nowSeconds } from './time.ts';

/** What to refund: a charge, or a payment intent's charge; by default all that is left. */
export interface RefundRequest {
  charge?: string;
  paymentIntent?: string;
  amount?: number;
  reason?: Stripe.Refund.Reason | null;
  metadata?: Record<string, string>;
}

/** The charge to refund, locked: the one named, or the intent's latest. */
async function chargeOf(docs: Documents, request: RefundRequest): Promise<Stripe.Charge> {
  let id = request.charge;
  if (request.paymentIntent !== undefined) {
    const { data: intent } = await docs.require<Stripe.PaymentIntent>(
      'payment_intent',
      request.paymentIntent,
      { param: 'payment_intent' },
    );
    if (intent.status !== 'succeeded' || intent.latest_charge === null)
      throw invalidParam(
        `This PaymentIntent (${intent.id}) does not have a successful charge to refund.`,
        'payment_intent',
      );
    id = String(intent.latest_charge);
  }
  const { data } = await docs.require<Stripe.Charge>('charge', id ?? '', {
    lock: true,
    param: 'charge',
  });
  return data;
}

/** Stripe's refusals: a charge not (or not yet) paid, nothing left, or more than is left. */
function checkRefundable(charge: Stripe.Charge, amount: number): void {
  if (charge.status !== 'succeeded')
    throw invalidParam(
      `Charge ${charge.id} is ${charge.status}: only a succeeded charge can be refunded.`,
      'charge',
    );
  const left = refundable(charge);
  if (left === 0)
    throw invalidParam(
      `Charge ${charge.id} has already been refunded.`,
      undefined,
      'charge_already_refunded',
    );
  if (amount > left)
    throw invalidParam(
      `Refund amount (${money(amount, charge.currency)}) is greater than unrefunded amount on charge (${money(left, charge.currency)})`,
      'amount',
    );
}

export function createRefund(
  ctx: SimContext,
  request: RefundRequest,
  trigger: Trigger,
): Promise<Outcome<Stripe.Refund>> {
  return mutate(ctx, trigger, async (unit) => {
    const charge = await chargeOf(unit.docs, request);
    const amount = request.amount ?? refundable(charge);
    checkRefundable(charge, amount);
    const refund = buildRefund({
      charge,
      amount,
      reason: request.reason ?? null,
      metadata: request.metadata ?? {},
      created: nowSeconds(),
    });
    const after = refundedCharge(charge, amount);
    await unit.docs.save('refund', refund);
    await unit.docs.save('charge', after);
    await unit.emit('refund.created', refund);
    await unit.emit('charge.refunded', after, previousAttributes(charge, after));
    return refund;
  });
}
