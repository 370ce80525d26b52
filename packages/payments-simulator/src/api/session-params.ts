// The parameters of POST /v1/checkout/sessions, checked as Stripe checks them. The simulator
// sells subscriptions: mode=subscription with one line item naming a recurring price by id, with
// the offers Stripe's Checkout has: a trial (subscription_data[trial_period_days] or [trial_end],
// [trial_settings]), payment_method_collection, allow_promotion_codes or one discount, automatic
// tax with customer_update and tax_id_collection. Stripe parameters it does not model (locale, ...)
// are accepted and ignored; ones whose effect it cannot honour (inline price_data) are refused.
import type Stripe from 'stripe';
import { invalidParam } from '../errors.ts';
import type { FormObject } from '../form.ts';
import type { CustomerUpdate, NewSession, SubscriptionData } from '../objects/checkout.ts';
import { appliedDiscount } from '../objects/offers.ts';
import {
  customerUpdate,
  discount,
  enabled,
  missingPaymentMethod,
  trialDays,
} from './offer-params.ts';
import {
  allowOnly,
  array,
  flag,
  hash,
  mergeMetadata,
  metadata,
  oneOf,
  text,
  whole,
} from '../params.ts';
import type { Documents } from '../store.ts';
import { nowSeconds } from '../time.ts';

const SESSION_PARAMS = [
  'adaptive_pricing',
  'after_expiration',
  'allow_promotion_codes',
  'allowed_payment_method_types',
  'automatic_tax',
  'billing_address_collection',
  'branding_settings',
  'cancel_url',
  'client_reference_id',
  'consent_collection',
  'currency',
  'custom_fields',
  'custom_text',
  'customer',
  'customer_account',
  'customer_creation',
  'customer_email',
  'customer_update',
  'discounts',
  'excluded_payment_method_types',
  'expand',
  'expires_at',
  'integration_identifier',
  'invoice_creation',
  'line_items',
  'locale',
  'managed_payments',
  'metadata',
  'mode',
  'name_collection',
  'optional_items',
  'origin_context',
  'payment_intent_data',
  'payment_method_collection',
  'payment_method_configuration',
  'payment_method_data',
  'payment_method_options',
  'payment_method_types',
  'permissions',
  'phone_number_collection',
  'redirect_on_completion',
  'return_url',
  'saved_payment_method_options',
  'setup_intent_data',
  'shipping_address_collection',
  'shipping_options',
  'submit_type',
  'subscription_data',
  'success_url',
  'tax_id_collection',
  'ui_mode',
  'wallet_options',
];
const LINE_ITEM_PARAMS = [
  'adjustable_quantity',
  'dynamic_tax_rates',
  'metadata',
  'price',
  'price_data',
  'quantity',
  'tax_rates',
];
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

const unsupported = (param: string, why: string) =>
  invalidParam(`The payments simulator does not support ${param}: ${why}.`, param);

function url(params: FormObject, name: string): string | null {
  const value = text(params, name, { max: 5000 });
  if (value === undefined) return null;
  try {
    const parsed = new URL(value);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return value;
  } catch {
    // reported below
  }
  throw invalidParam('Not a valid URL', name, 'url_invalid');
}

async function lineItem(
  docs: Documents,
  params: FormObject,
): Promise<{ price: Stripe.Price; quantity: number }> {
  const items = array(params, 'line_items');
  if (items === undefined || items.length === 0) {
    throw invalidParam(
      'You must provide at least one recurring price in `subscription` mode when using prices.',
      'line_items',
    );
  }
  if (items.length > 1) throw unsupported('line_items[1]', 'a simulated checkout sells one price');
  const item = hash({ item: items[0]! }, 'item', 'line_items[0]')!;
  allowOnly(item, LINE_ITEM_PARAMS, 'line_items[0]');
  if (item.price_data !== undefined)
    throw unsupported(
      'line_items[0][price_data]',
      'name one of the configured prices in line_items[0][price]',
    );
  const priceId = text(item, 'price', { required: true, param: 'line_items[0][price]' })!;
  const quantity = whole(item, 'quantity', { min: 1, max: 999_999 }, 'line_items[0][quantity]');
  if (quantity === undefined)
    throw invalidParam(
      'Quantity is required. Add `quantity` to `line_items[0]`',
      'line_items[0][quantity]',
    );
  const price = (
    await docs.require<Stripe.Price>('price', priceId, { param: 'line_items[0][price]' })
  ).data;
  if (price.type !== 'recurring' || !price.active) {
    throw invalidParam(
      'You must provide at least one recurring price in `subscription` mode when using prices.',
      'line_items[0][price]',
    );
  }
  return { price, quantity };
}

function subscriptionData(params: FormObject, now: number): SubscriptionData {
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

/** mode=subscription on the hosted page: the only checkout the simulator has. */
function checkMode(params: FormObject): void {
  const mode = oneOf(params, 'mode', ['payment', 'setup', 'subscription'] as const);
  if (mode === undefined) throw invalidParam('Missing required param: mode.', 'mode');
  if (mode !== 'subscription')
    throw unsupported('mode', `only mode=subscription is simulated, got ${mode}`);
  const uiMode = text(params, 'ui_mode');
  if (uiMode !== undefined && uiMode !== 'hosted_page')
    throw unsupported('ui_mode', 'only the hosted page is simulated');
}

/** `customer` (which must exist) or `customer_email`, at most one of them. */
async function customerParams(docs: Documents, params: FormObject) {
  const customer = text(params, 'customer');
  const customerEmail = text(params, 'customer_email', { max: 512 });
  if (customer !== undefined && customerEmail !== undefined)
    throw invalidParam(
      'You may only specify one of these parameters: customer, customer_email.',
      'customer_email',
    );
  const customerDoc =
    customer === undefined
      ? null
      : (await docs.require<Stripe.Customer>('customer', customer, { param: 'customer' })).data;
  return { customer, customerEmail, customerDoc };
}

function expiresAtParam(params: FormObject, now: number): number | undefined {
  const expiresAt = whole(params, 'expires_at', { min: 0, max: Number.MAX_SAFE_INTEGER });
  if (expiresAt !== undefined && (expiresAt < now + 1800 || expiresAt > now + 86_400)) {
    throw invalidParam(
      'The `expires_at` timestamp must be between 30 minutes and 24 hours from Checkout Session creation.',
      'expires_at',
    );
  }
  return expiresAt;
}

/** Stripe's own rules: tax needs an address it may read or write, tax ids the customer's name. */
function checkTaxRules(
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

export async function readSessionParams(
  docs: Documents,
  params: FormObject,
): Promise<Omit<NewSession, 'created' | 'expiresAt'> & { expiresAt?: number }> {
  allowOnly(params, SESSION_PARAMS);
  checkMode(params);
  const { customer, customerEmail, customerDoc } = await customerParams(docs, params);
  const now = nowSeconds();
  const expiresAt = expiresAtParam(params, now);
  const { price, quantity } = await lineItem(docs, params);
  const subscriptionDataParams = subscriptionData(params, now);
  const paymentMethodCollection =
    oneOf(params, 'payment_method_collection', ['always', 'if_required'] as const) ?? 'always';
  const allowPromotionCodes = flag(params, 'allow_promotion_codes') ?? false;
  const sessionDiscount = await discount(docs, params);
  if (allowPromotionCodes && sessionDiscount !== null)
    throw invalidParam(
      'You may only specify one of these parameters: allow_promotion_codes, discounts.',
      'allow_promotion_codes',
    );
  const update = customerUpdate(params, customer);
  const automaticTax = enabled(params, 'automatic_tax', ['liability']);
  const taxIdCollection = enabled(params, 'tax_id_collection', ['required']);
  checkTaxRules(customerDoc, { automaticTax, taxIdCollection, update });
  return {
    customer: customer ?? null,
    customerEmail: customerEmail ?? null,
    clientReferenceId: text(params, 'client_reference_id', { max: 200 }) ?? null,
    price,
    quantity,
    successUrl: url(params, 'success_url'),
    cancelUrl: url(params, 'cancel_url'),
    metadata: mergeMetadata({}, metadata(params)),
    subscriptionData: subscriptionDataParams,
    paymentMethodCollection,
    allowPromotionCodes,
    discount: sessionDiscount && (await appliedDiscount(docs, sessionDiscount, null)),
    automaticTax,
    addressKnown: customerDoc?.address != null,
    customerUpdate: update,
    taxIdCollection,
    expiresAt,
  };
}
