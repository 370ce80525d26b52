// What POST /v1/checkout/sessions takes in payment mode besides what every session takes
// (session-params.ts): `payment_intent_data` for the PaymentIntent the payment creates (its
// metadata, description, receipt e-mail, statement descriptors), and `customer_creation`. The
// subscription's parameters are refused as Stripe refuses them; offers the simulator prices only
// for subscriptions (discounts, automatic tax) and Connect are refused as not simulated.
import { invalidParam, unsupported } from '../errors.ts';
import type { FormObject } from '../form.ts';
import type { IntentData } from '../objects/payment-intents.ts';
import { allowOnly, flag, hash, metadata, oneOf, text } from '../params.ts';

const INTENT_DATA_PARAMS = [
  'application_fee_amount',
  'capture_method',
  'description',
  'metadata',
  'on_behalf_of',
  'receipt_email',
  'setup_future_usage',
  'shipping',
  'statement_descriptor',
  'statement_descriptor_suffix',
  'transfer_data',
  'transfer_group',
];

/** A subscription's parameters and the offers the simulator prices only for subscriptions. */
function refuseSubscriptionParams(params: FormObject): void {
  if (params.subscription_data !== undefined)
    throw invalidParam(
      'You can not pass `subscription_data` in `payment` mode.',
      'subscription_data',
    );
  const notHere = (param: string) =>
    unsupported(param, 'in payment mode the simulator charges the price as it is');
  if (params.discounts !== undefined) throw notHere('discounts');
  if (flag(params, 'allow_promotion_codes')) throw notHere('allow_promotion_codes');
  for (const name of ['automatic_tax', 'tax_id_collection', 'invoice_creation']) {
    const setting = hash(params, name);
    if (setting !== undefined && flag(setting, 'enabled', `${name}[enabled]`))
      throw notHere(`${name}[enabled]`);
  }
}

function intentData(params: FormObject): IntentData {
  const data = hash(params, 'payment_intent_data') ?? {};
  const at = (name: string) => `payment_intent_data[${name}]`;
  allowOnly(data, INTENT_DATA_PARAMS, 'payment_intent_data');
  for (const name of ['application_fee_amount', 'on_behalf_of', 'transfer_data'])
    if (data[name] !== undefined) throw unsupported(at(name), 'there is no Connect here');
  const capture = oneOf(data, 'capture_method', [
    'automatic',
    'automatic_async',
    'manual',
  ] as const);
  if (capture === 'manual')
    throw unsupported(at('capture_method'), 'payments are captured when confirmed');
  if (data.setup_future_usage !== undefined)
    throw unsupported(at('setup_future_usage'), 'a payment method is not saved for later');
  const optional = (name: string, max: number) =>
    text(data, name, { max, param: at(name) }) ?? null;
  return {
    metadata: metadata(data, 'metadata', at('metadata')) ?? {},
    description: optional('description', 1000),
    receipt_email: optional('receipt_email', 800),
    statement_descriptor: optional('statement_descriptor', 22),
    statement_descriptor_suffix: optional('statement_descriptor_suffix', 22),
  };
}

/** The payment-mode part of a session: whether it makes a customer, and its intent's data. */
export function paymentModeParams(params: FormObject, customer: string | undefined) {
  refuseSubscriptionParams(params);
  const creation = oneOf(params, 'customer_creation', ['always', 'if_required'] as const);
  if (creation !== undefined && customer !== undefined)
    throw invalidParam(
      'You may only specify one of these parameters: customer, customer_creation.',
      'customer_creation',
    );
  return {
    customerCreation: customer === undefined ? (creation ?? 'if_required') : null,
    paymentIntentData: intentData(params),
    paymentMethodCollection:
      oneOf(params, 'payment_method_collection', ['always', 'if_required'] as const) ??
      'if_required',
  };
}
