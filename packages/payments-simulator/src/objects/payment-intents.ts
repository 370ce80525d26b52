// The PaymentIntent a checkout in payment mode creates when the customer pays (not before: since
// API 2022-08-01 an open session's `payment_intent` is null), and the states it then goes through:
// succeeded at once for a card; processing for a bank debit, which later succeeds or fails (the
// intent then wants another payment method, the failure in `last_payment_error`).
import type Stripe from 'stripe';
import { newId } from '../ids.ts';

/** How the page paid: a card (at once) or a US bank account debit (ACH, settles days later). */
export type PaymentMethodType = 'card' | 'us_bank_account';
export const PAYMENT_METHOD_TYPES: readonly PaymentMethodType[] = ['card', 'us_bank_account'];

/** What `payment_intent_data` gives the intent. */
export interface IntentData {
  metadata: Record<string, string>;
  description: string | null;
  receipt_email: string | null;
  statement_descriptor: string | null;
  statement_descriptor_suffix: string | null;
}

export interface NewIntent {
  amount: number;
  currency: string;
  customer: string | null;
  data: IntentData;
  paymentMethodTypes: string[];
  created: number;
}

/** As Checkout creates it, before the payment method is confirmed. */
export function buildPaymentIntent(input: NewIntent): Stripe.PaymentIntent {
  const id = newId('pi_');
  return {
    id,
    object: 'payment_intent',
    allowed_payment_method_types: null,
    amount: input.amount,
    amount_capturable: 0,
    amount_received: 0,
    application: null,
    application_fee_amount: null,
    automatic_payment_methods: null,
    canceled_at: null,
    cancellation_reason: null,
    capture_method: 'automatic_async',
    client_secret: `${id}_secret_${newId('', 25)}`,
    confirmation_method: 'automatic',
    created: input.created,
    currency: input.currency,
    customer: input.customer,
    customer_account: null,
    description: input.data.description,
    excluded_payment_method_types: null,
    last_payment_error: null,
    latest_charge: null,
    livemode: false,
    managed_payments: null,
    metadata: input.data.metadata,
    next_action: null,
    on_behalf_of: null,
    payment_method: null,
    payment_method_configuration_details: null,
    payment_method_options: {},
    payment_method_types: input.paymentMethodTypes,
    payment_record: null,
    processing: null,
    receipt_email: input.data.receipt_email,
    review: null,
    setup_future_usage: null,
    shipping: null,
    source: null,
    statement_descriptor: input.data.statement_descriptor,
    statement_descriptor_suffix: input.data.statement_descriptor_suffix,
    status: 'requires_payment_method',
    transfer_data: null,
    transfer_group: null,
  };
}

/** Confirmed with a payment method: a card's charge succeeded, a bank debit's is pending. */
export function confirmedIntent(
  intent: Stripe.PaymentIntent,
  charge: Stripe.Charge,
): Stripe.PaymentIntent {
  const succeeded = charge.status === 'succeeded';
  return {
    ...intent,
    amount_received: succeeded ? intent.amount : 0,
    latest_charge: charge.id,
    payment_method: charge.payment_method,
    status: succeeded ? 'succeeded' : 'processing',
  };
}

/** A processing debit that settled. */
export const settledIntent = (intent: Stripe.PaymentIntent): Stripe.PaymentIntent => ({
  ...intent,
  amount_received: intent.amount,
  status: 'succeeded',
});

/** A processing debit that failed: the intent wants another payment method. */
export function failedIntent(
  intent: Stripe.PaymentIntent,
  charge: Stripe.Charge,
): Stripe.PaymentIntent {
  return {
    ...intent,
    last_payment_error: {
      charge: charge.id,
      code: 'insufficient_funds',
      doc_url: 'https://stripe.com/docs/error-codes/insufficient-funds',
      message: charge.failure_message ?? 'The payment failed.',
      payment_method_type: 'us_bank_account',
      type: 'invalid_request_error',
    },
    payment_method: null,
    status: 'requires_payment_method',
  };
}
