// The subscription-mode part of POST /v1/checkout/sessions: `subscription_data` (metadata,
// description, a trial by days or by its end, what happens at its end without a payment method)
// and Stripe's rules tying automatic tax and tax id collection to what Checkout may write onto an
// existing customer.
import type Stripe from 'stripe';
import { invalidParam } from '../errors.ts';
import type { FormObject } from '../form.ts';
import type { CustomerUpdate, NewSession, SubscriptionData } from '../objects/checkout.ts';
import { allowOnly, hash, mergeMetadata, metadata, text, whole } from '../params.ts';
import { missingPaymentMethod, trialDays } from './offer-params.ts';

const SUBSCRIPTION_DATA_PARAMS = [
  'application_fee_percent',
  'billing_cycle_anchor',
  'billing_cycle_anchor_config',
  'billing_mode',
  'default_tax_rates',
  'description',
  'invoice_settings',
  'metadata',
  'on_behalf_of',
  'pending_invoice_item_interval',
  'proration_behavior',
  'transfer_data',
  'trial_end',
  'trial_period_days',
  'trial_settings',
];

export function subscriptionData(params: FormObject, now: number): SubscriptionData {
  const data = hash(params, 'subscription_data');
  if (data === undefined) return { metadata: {}, description: null };
  allowOnly(data, SUBSCRIPTION_DATA_PARAMS, 'subscription_data');
  const days = trialDays(data, 'subscription_data[trial_period_days]');
  const end =
    whole(
      data,
      'trial_end',
      { min: 0, max: Number.MAX_SAFE_INTEGER },
      'subscription_data[trial_end]',
    ) ?? null;
  if (days !== null && end !== null)
    throw invalidParam(
      'You may only specify one of these parameters: subscription_data[trial_end], subscription_data[trial_period_days].',
      'subscription_data[trial_end]',
    );
  if (end !== null && end < now + 48 * 3_600)
    throw invalidParam(
      '`subscription_data[trial_end]` must be at least 48 hours in the future.',
      'subscription_data[trial_end]',
    );
  return {
    metadata: mergeMetadata({}, metadata(data, 'metadata', 'subscription_data[metadata]')),
    description:
      text(data, 'description', { max: 500, param: 'subscription_data[description]' }) ?? null,
    trial_period_days: days,
    trial_end: end,
    missing_payment_method: missingPaymentMethod(data, 'subscription_data'),
  };
}

/** Stripe's own rules: tax needs an address it may read or write, tax ids the customer's name. */
export function checkTaxRules(
  customerDoc: Stripe.Customer | null,
  {
    automaticTax,
    taxIdCollection,
    update,
  }: Pick<NewSession, 'automaticTax' | 'taxIdCollection'> & {
    update: CustomerUpdate | null;
  },
): void {
  if (
    automaticTax &&
    customerDoc !== null &&
    customerDoc.address == null &&
    update?.address !== 'auto' &&
    update?.shipping !== 'auto'
  )
    throw invalidParam(
      "Automatic tax calculation in Checkout requires a valid address on the Customer. Add a valid address to the Customer or set either `customer_update[address]` to 'auto' or `customer_update[shipping]` to 'auto' to save the address entered in Checkout to the Customer.",
      'automatic_tax[enabled]',
    );
  if (taxIdCollection && customerDoc !== null && update?.name !== 'auto')
    throw invalidParam(
      "tax_id_collection requires updating business name on the customer. To enable tax id collection for an existing customer, please set `customer_update[name]` to 'auto'.",
      'tax_id_collection[enabled]',
    );
}
