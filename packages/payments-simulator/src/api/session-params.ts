// The parameters of POST /v1/checkout/sessions, checked as Stripe checks them. The simulator
// sells subscriptions: mode=subscription with one line item naming a recurring price by id, with
// the offers Stripe's Checkout has: a trial (subscription_data[trial_period_days] or [trial_end],
// [trial_settings]: subscription-session-params.ts), payment_method_collection,
// allow_promotion_codes or one discount, automatic tax with customer_update and tax_id_collection.
// It sells one-time prices too: mode=payment with one line item naming a one-time price
// (payment-session-params.ts). Stripe parameters it does not model (locale, ...) are accepted and
// ignored; ones whose effect it cannot honour (inline price_data) are refused.
import type Stripe from 'stripe';
import { invalidParam, unsupported } from '../errors.ts';
import type { FormObject } from '../form.ts';
import type { NewSession, SessionMode } from '../objects/checkout.ts';
import { appliedDiscount } from '../objects/offers.ts';
import { customerUpdate, discount, enabled } from './offer-params.ts';
import { paymentModeParams } from './payment-session-params.ts';
import { lineItem } from './session-line-params.ts';
import { checkTaxRules, subscriptionData } from './subscription-session-params.ts';
import { allowOnly, flag, mergeMetadata, metadata, oneOf, text, whole } from '../params.ts';
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

/** mode=subscription or mode=payment on the hosted page: the checkouts the simulator has. */
function checkMode(params: FormObject): SessionMode {
  const mode = oneOf(params, 'mode', ['payment', 'setup', 'subscription'] as const);
  if (mode === undefined) throw invalidParam('Missing required param: mode.', 'mode');
  if (mode === 'setup')
    throw unsupported('mode', 'only mode=subscription and mode=payment are simulated, got setup');
  const uiMode = text(params, 'ui_mode');
  if (uiMode !== undefined && uiMode !== 'hosted_page')
    throw unsupported('ui_mode', 'only the hosted page is simulated');
  return mode;
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

type SessionParams = Omit<NewSession, 'created' | 'expiresAt'> & { expiresAt?: number };

/** What every session takes, whatever its mode. */
async function commonParams(docs: Documents, params: FormObject, mode: SessionMode) {
  const { customer, customerEmail, customerDoc } = await customerParams(docs, params);
  const expiresAt = expiresAtParam(params, nowSeconds());
  const { price, quantity } = await lineItem(docs, params, mode);
  return {
    customer: customer ?? null,
    customerEmail: customerEmail ?? null,
    clientReferenceId: text(params, 'client_reference_id', { max: 200 }) ?? null,
    price,
    quantity,
    successUrl: url(params, 'success_url'),
    cancelUrl: url(params, 'cancel_url'),
    metadata: mergeMetadata({}, metadata(params)),
    expiresAt,
    customerDoc,
  };
}

/** Payment mode: one one-time price, charged as it is (payment-session-params.ts). */
function paymentSession(common: Awaited<ReturnType<typeof commonParams>>, params: FormObject) {
  const { customerDoc, ...session } = common;
  return {
    ...session,
    ...paymentModeParams(params, common.customer ?? undefined),
    mode: 'payment' as const,
    subscriptionData: { metadata: {}, description: null },
    allowPromotionCodes: false,
    discount: null,
    automaticTax: false,
    addressKnown: false,
    customerUpdate: null,
    taxIdCollection: false,
  };
}

export async function readSessionParams(
  docs: Documents,
  params: FormObject,
): Promise<SessionParams> {
  allowOnly(params, SESSION_PARAMS);
  const mode = checkMode(params);
  const common = await commonParams(docs, params, mode);
  if (mode === 'payment') return paymentSession(common, params);
  const { customerDoc, ...session } = common;
  const subscriptionDataParams = subscriptionData(params, nowSeconds());
  const paymentMethodCollection =
    oneOf(params, 'payment_method_collection', ['always', 'if_required'] as const) ?? 'always';
  const allowPromotionCodes = flag(params, 'allow_promotion_codes') ?? false;
  const sessionDiscount = await discount(docs, params);
  if (allowPromotionCodes && sessionDiscount !== null)
    throw invalidParam(
      'You may only specify one of these parameters: allow_promotion_codes, discounts.',
      'allow_promotion_codes',
    );
  const update = customerUpdate(params, session.customer ?? undefined);
  const automaticTax = enabled(params, 'automatic_tax', ['liability']);
  const taxIdCollection = enabled(params, 'tax_id_collection', ['required']);
  checkTaxRules(customerDoc, { automaticTax, taxIdCollection, update });
  return {
    ...session,
    mode,
    subscriptionData: subscriptionDataParams,
    paymentMethodCollection,
    allowPromotionCodes,
    discount: sessionDiscount && (await appliedDiscount(docs, sessionDiscount, null)),
    automaticTax,
    addressKnown: customerDoc?.address != null,
    customerUpdate: update,
    taxIdCollection,
    customerCreation: null,
    paymentIntentData: null,
  };
}
