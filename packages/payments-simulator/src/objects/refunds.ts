// The Refund object: part or all of a charge given back, succeeded at once (a card's refund, and
// here a bank debit's too), and a charge's refunds as the list `expand[]=refunds` puts back on it.
import type Stripe from 'stripe';
import { newId } from '../ids.ts';
import type { Documents } from '../store.ts';

export interface NewRefund {
  charge: Stripe.Charge;
  amount: number;
  reason: Stripe.Refund.Reason | null;
  metadata: Record<string, string>;
  created: number;
}

function destinationOf(charge: Stripe.Charge): Stripe.Refund.DestinationDetails {
  if (charge.payment_method_details?.type === 'us_bank_account') return { type: 'us_bank_account' };
  return { card: { type: 'refund' }, type: 'card' };
}

export function buildRefund({
  charge,
  amount,
  reason,
  metadata,
  created,
}: NewRefund): Stripe.Refund {
  return {
    id: newId('re_'),
    object: 'refund',
    amount,
    balance_transaction: newId('txn_'),
    charge: charge.id,
    created,
    currency: charge.currency,
    customer: charge.customer,
    customer_account: null,
    destination_details: destinationOf(charge),
    metadata,
    payment_intent: charge.payment_intent,
    payment_method: charge.payment_method,
    reason,
    receipt_number: null,
    source_transfer_reversal: null,
    status: 'succeeded',
    transfer_reversal: null,
  };
}

/** The charge's refunds, newest first, as Stripe lists them under the charge. */
export async function refundsOf(
  docs: Documents,
  chargeId: string,
): Promise<Stripe.ApiList<Stripe.Refund>> {
  const page = await docs.list<Stripe.Refund>('refund', { ref: chargeId }, { limit: 100 });
  return {
    object: 'list',
    data: page.data.map((row) => row.data),
    has_more: page.hasMore,
    url: `/v1/charges/${chargeId}/refunds`,
  };
}
