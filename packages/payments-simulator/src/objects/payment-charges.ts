// The Charge object of a one-time payment (charge.ts is the arithmetic of amounts, not this): a
// card's (`ch_`, succeeded at once) or a US bank account debit's (`py_`, as Stripe names those,
// pending until it settles or fails). It carries its intent's metadata, and how much of it refunds
// took back; since API 2022-11-15 its `refunds` list is left out unless expanded.
import type Stripe from 'stripe';
import { newId } from '../ids.ts';
import type { PaymentMethodType } from './payment-intents.ts';
import { paymentMethodDetails } from './payment-method-details.ts';

/** Who paid, as the checkout page collected it. */
export interface Payer {
  email: string | null;
  name: string | null;
}

const AUTHORIZED: Stripe.Charge.Outcome = {
  advice_code: null,
  network_advice_code: null,
  network_decline_code: null,
  network_status: 'approved_by_network',
  reason: null,
  risk_level: 'normal',
  seller_message: 'Payment complete.',
  type: 'authorized',
};

export interface NewCharge {
  intent: Stripe.PaymentIntent;
  method: PaymentMethodType;
  paymentMethod: string;
  payer: Payer;
  created: number;
}

/** The charge confirming the intent: succeeded for a card, pending for a bank debit. */
export function buildCharge({
  intent,
  method,
  paymentMethod,
  payer,
  created,
}: NewCharge): Stripe.Charge {
  const card = method === 'card';
  return {
    id: newId(card ? 'ch_' : 'py_'),
    object: 'charge',
    amount: intent.amount,
    amount_captured: intent.amount,
    amount_refunded: 0,
    application: null,
    application_fee: null,
    application_fee_amount: null,
    balance_transaction: newId('txn_'),
    billing_details: {
      address: null,
      email: payer.email,
      name: payer.name,
      phone: null,
      tax_id: null,
    },
    calculated_statement_descriptor: 'PAYMENTS SIMULATOR',
    captured: true,
    created,
    currency: intent.currency,
    customer: intent.customer,
    description: intent.description,
    disputed: false,
    failure_balance_transaction: null,
    failure_code: null,
    failure_message: null,
    fraud_details: {},
    livemode: false,
    metadata: intent.metadata,
    on_behalf_of: null,
    outcome: AUTHORIZED,
    paid: card,
    payment_intent: intent.id,
    payment_method: paymentMethod,
    payment_method_details: paymentMethodDetails(method, intent.amount),
    receipt_email: intent.receipt_email,
    receipt_number: null,
    receipt_url: null,
    refunded: false,
    review: null,
    shipping: null,
    source: null,
    source_transfer: null,
    statement_descriptor: intent.statement_descriptor,
    statement_descriptor_suffix: intent.statement_descriptor_suffix,
    status: card ? 'succeeded' : 'pending',
    transfer_data: null,
    transfer_group: null,
  };
}

/** A pending bank debit that settled. */
export const settledCharge = (charge: Stripe.Charge): Stripe.Charge => ({
  ...charge,
  paid: true,
  status: 'succeeded',
});

/** A pending bank debit the bank returned. */
export const failedCharge = (charge: Stripe.Charge): Stripe.Charge => ({
  ...charge,
  failure_balance_transaction: newId('txn_'),
  failure_code: 'insufficient_funds',
  failure_message: "The customer's account has insufficient funds to cover this payment.",
  outcome: {
    ...AUTHORIZED,
    network_status: 'declined_by_network',
    reason: 'insufficient_funds',
    seller_message: 'The bank returned the debit: insufficient funds.',
    type: 'issuer_declined',
  },
  status: 'failed',
});

/** What refunds may still take back. */
export const refundable = (charge: Stripe.Charge): number =>
  charge.amount_captured - charge.amount_refunded;

/** The charge after a refund of `amount`: fully refunded once nothing is left. */
export function refundedCharge(charge: Stripe.Charge, amount: number): Stripe.Charge {
  const refunded = charge.amount_refunded + amount;
  return { ...charge, amount_refunded: refunded, refunded: refunded >= charge.amount_captured };
}
