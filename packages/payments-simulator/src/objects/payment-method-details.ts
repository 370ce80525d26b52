// How a one-time payment was paid, as its Charge's `payment_method_details` says: Stripe's test
// Visa ending 4242, or a checking account at STRIPE TEST BANK ending 6789 debited by ACH.
import type Stripe from 'stripe';
import type { PaymentMethodType } from './payment-intents.ts';

function cardDetails(amount: number): Stripe.Charge.PaymentMethodDetails.Card {
  return {
    amount_authorized: amount,
    authorization_code: null,
    brand: 'visa',
    checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'pass' },
    country: 'US',
    electronic_commerce_indicator: null,
    exp_month: 12,
    exp_year: 2034,
    extended_authorization: { status: 'disabled' },
    fingerprint: 'SimulatorCard4242',
    funding: 'credit',
    incremental_authorization: { status: 'unavailable' },
    installments: null,
    last4: '4242',
    mandate: null,
    multicapture: { status: 'unavailable' },
    network: 'visa',
    network_token: { used: false },
    network_transaction_id: null,
    overcapture: { maximum_amount_capturable: amount, status: 'unavailable' },
    regulated_status: 'unregulated',
    three_d_secure: null,
    transaction_link_id: null,
    wallet: null,
  };
}

const BANK_DETAILS: Stripe.Charge.PaymentMethodDetails.UsBankAccount = {
  account_holder_type: 'individual',
  account_type: 'checking',
  bank_name: 'STRIPE TEST BANK',
  fingerprint: 'SimulatorBank6789',
  last4: '6789',
  payment_reference: null,
  routing_number: '110000000',
};

export const paymentMethodDetails = (
  method: PaymentMethodType,
  amount: number,
): Stripe.Charge.PaymentMethodDetails =>
  method === 'card'
    ? { card: cardDetails(amount), type: 'card' }
    : { type: 'us_bank_account', us_bank_account: BANK_DETAILS };
