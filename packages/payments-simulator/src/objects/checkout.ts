// Checkout sessions in subscription mode, and in payment mode for a one-time price (no trial, no
// offers: what it charges is the price). The Stripe object does not show what the session will
// create (its price, quantity, subscription_data, customer_update); that is kept as the document's
// `extra`, and the price comes back through `expand[]=line_items` or GET .../line_items, as on
// Stripe. Its amounts are what is due today (charge.ts): nothing during a trial; a redeemed code's
// discount and the automatic tax otherwise, as the first invoice will charge them.
import type Stripe from 'stripe';
import { newId } from '../ids.ts';
import type { Documents, Stored } from '../store.ts';
import {
  billable,
  chargeOf,
  itemAmount,
  type Adjustments,
  type AppliedDiscount,
  type Charge,
} from './charge.ts';
import { sessionAdjustments, SIMULATED_TAX } from './offers.ts';
import { PAYMENT_METHOD_TYPES, type IntentData } from './payment-intents.ts';

type MissingPaymentMethod = Stripe.Subscription.TrialSettings.EndBehavior.MissingPaymentMethod;

export interface SessionLine {
  id: string;
  price: string;
  quantity: number;
}

export interface SubscriptionData {
  metadata: Record<string, string>;
  description: string | null;
  /** Days of trial, or the trial's end (at most one of the two); absent on older sessions. */
  trial_period_days?: number | null;
  trial_end?: number | null;
  missing_payment_method?: MissingPaymentMethod | null;
}

export interface CustomerUpdate {
  address: 'auto' | 'never';
  name: 'auto' | 'never';
  shipping: 'auto' | 'never';
}

export interface SessionExtra {
  line_items: SessionLine[];
  subscription_data: SubscriptionData;
  /** What Checkout may write onto the customer; absent without `customer_update`. */
  customer_update?: CustomerUpdate | null;
  /** Payment mode: what the PaymentIntent is created with when the customer pays. */
  payment_intent_data?: IntentData | null;
}

/** A coupon or promotion code on the session (at most one, as on Stripe). */
export interface SessionDiscount {
  coupon: string;
  promotionCode: string | null;
}

export type SessionMode = 'payment' | 'subscription';

export interface NewSession {
  mode: SessionMode;
  customer: string | null;
  customerEmail: string | null;
  clientReferenceId: string | null;
  price: Stripe.Price;
  quantity: number;
  successUrl: string | null;
  cancelUrl: string | null;
  metadata: Record<string, string>;
  subscriptionData: SubscriptionData;
  paymentMethodCollection: 'always' | 'if_required';
  allowPromotionCodes: boolean;
  discount: AppliedDiscount | null;
  automaticTax: boolean;
  /** Whether the customer's address is known already (automatic tax can compute at once). */
  addressKnown: boolean;
  customerUpdate: CustomerUpdate | null;
  taxIdCollection: boolean;
  /** Payment mode, without a customer: whether paying makes one. */
  customerCreation: 'always' | 'if_required' | null;
  /** Payment mode: what the PaymentIntent is created with; null in subscription mode. */
  paymentIntentData: IntentData | null;
  created: number;
  expiresAt: number;
}

/** What a session in payment mode says differently: it makes no invoice, and offers a bank debit. */
function paymentModeFields(input: NewSession): Partial<Stripe.Checkout.Session> {
  return {
    customer_creation: input.customerCreation,
    invoice_creation: {
      enabled: false,
      invoice_data: {
        account_tax_ids: null,
        custom_fields: null,
        description: null,
        footer: null,
        issuer: null,
        metadata: {},
        rendering_options: null,
      },
    },
    mode: 'payment',
    payment_method_types: [...PAYMENT_METHOD_TYPES],
  };
}

/** Whether the session's subscription starts with a trial. */
export const hasTrial = (data: SubscriptionData): boolean =>
  (data.trial_period_days ?? null) !== null || (data.trial_end ?? null) !== null;

/** The session's line, as its subscription's item will be. */
export interface SessionItem {
  price: Stripe.Price;
  quantity: number;
}

/** What the first invoice after any trial charges: the item, its discount and tax. */
const firstCharge = (item: SessionItem, adjustments: Adjustments): Charge =>
  chargeOf([billable(itemAmount(item.price, item.quantity))], adjustments);

/** What is due today: the first charge, or nothing during a trial (its first invoice is $0). */
export const dueToday = (item: SessionItem, trial: boolean, adjustments: Adjustments): Charge =>
  trial ? chargeOf([billable(0)], adjustments) : firstCharge(item, adjustments);

/** What an open session sells and will charge: its item, discount and tax, the first charge. */
export interface SessionOffer {
  item: SessionItem;
  adjustments: Adjustments;
  /** The first invoice after any trial. */
  first: Charge;
  trial: boolean;
}

export async function sessionOffer(
  docs: Documents,
  { data, extra }: Stored<Stripe.Checkout.Session>,
): Promise<SessionOffer> {
  const { line_items: lines, subscription_data: subscriptionData } =
    extra as unknown as SessionExtra;
  const line = lines[0]!;
  const item = {
    price: (await docs.require<Stripe.Price>('price', line.price)).data,
    quantity: line.quantity,
  };
  const adjustments = await sessionAdjustments(docs, data);
  return {
    item,
    adjustments,
    first: firstCharge(item, adjustments),
    trial: hasTrial(subscriptionData),
  };
}

/** The session's amounts for what is due today. */
export function totalsOf(
  due: Charge,
): Pick<Stripe.Checkout.Session, 'amount_subtotal' | 'amount_total' | 'total_details'> {
  return {
    amount_subtotal: due.subtotal,
    amount_total: due.total,
    total_details: { amount_discount: due.discount, amount_shipping: 0, amount_tax: due.tax },
  };
}

export const sessionDiscounts = (
  discount: AppliedDiscount | null,
): Stripe.Checkout.Session.Discount[] =>
  discount === null
    ? []
    : [{ coupon: discount.coupon.id, promotion_code: discount.promotionCode?.id ?? null }];

export function buildSession(input: NewSession): {
  session: Stripe.Checkout.Session;
  extra: SessionExtra;
} {
  const totals = totalsOf(
    dueToday(input, hasTrial(input.subscriptionData), {
      discount: input.discount,
      taxPercent: input.automaticTax ? SIMULATED_TAX.percent : null,
    }),
  );
  const session: Stripe.Checkout.Session = {
    id: newId('cs_test_', 58),
    object: 'checkout.session',
    adaptive_pricing: null,
    after_expiration: null,
    allow_promotion_codes: input.allowPromotionCodes ? true : null,
    allowed_payment_method_types: null,
    amount_subtotal: totals.amount_subtotal,
    amount_total: totals.amount_total,
    automatic_tax: input.automaticTax
      ? {
          enabled: true,
          liability: { type: 'self' },
          provider: 'stripe',
          status: input.addressKnown ? 'complete' : 'requires_location_inputs',
        }
      : { enabled: false, liability: null, provider: null, status: null },
    billing_address_collection: null,
    cancel_url: input.cancelUrl,
    client_reference_id: input.clientReferenceId,
    client_secret: null,
    collected_information: null,
    consent: null,
    consent_collection: null,
    created: input.created,
    currency: input.price.currency,
    currency_conversion: null,
    custom_fields: [],
    custom_text: {
      after_submit: null,
      shipping_address: null,
      submit: null,
      terms_of_service_acceptance: null,
    },
    customer: input.customer,
    customer_account: null,
    customer_creation: input.customer === null ? 'always' : null,
    customer_details: null,
    customer_email: input.customerEmail,
    discounts: sessionDiscounts(input.discount),
    expires_at: input.expiresAt,
    integration_identifier: null,
    invoice: null,
    invoice_creation: null,
    livemode: false,
    locale: null,
    managed_payments: null,
    metadata: input.metadata,
    mode: 'subscription',
    origin_context: null,
    payment_intent: null,
    payment_link: null,
    payment_method_collection: input.paymentMethodCollection,
    payment_method_configuration_details: null,
    payment_method_options: null,
    payment_method_types: ['card'],
    payment_status: 'unpaid',
    permissions: null,
    recovered_from: null,
    saved_payment_method_options: null,
    setup_intent: null,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_options: [],
    status: 'open',
    submit_type: null,
    subscription: null,
    success_url: input.successUrl,
    tax_id_collection: { enabled: input.taxIdCollection, required: 'never' },
    total_details: totals.total_details,
    ui_mode: 'hosted_page',
    url: null,
    wallet_options: null,
    // Overwritten keys keep their place, so the order stays Stripe's.
    ...(input.mode === 'payment' ? paymentModeFields(input) : {}),
  };
  const extra: SessionExtra = {
    line_items: [{ id: newId('li_'), price: input.price.id, quantity: input.quantity }],
    subscription_data: input.subscriptionData,
    customer_update: input.customerUpdate,
    ...(input.paymentIntentData !== null && { payment_intent_data: input.paymentIntentData }),
  };
  return { session, extra };
}

/** The page a person pays on, while the session is open (Stripe answers null afterwards). */
export function presentSession(
  session: Stripe.Checkout.Session,
  baseUrl: string,
): Stripe.Checkout.Session {
  return {
    ...session,
    url: session.status === 'open' ? `${baseUrl}/checkout/${session.id}` : null,
  };
}

/** The session's one line, its amounts those of the session (what is due today). */
export async function lineItemsOf(
  docs: Documents,
  session: Stripe.Checkout.Session,
  extra: SessionExtra,
): Promise<Stripe.ApiList<Stripe.LineItem>> {
  const data: Stripe.LineItem[] = [];
  for (const line of extra.line_items) {
    const price = (await docs.require<Stripe.Price>('price', line.price)).data;
    const product = (
      await docs.get<Stripe.Product>(
        'product',
        typeof price.product === 'string' ? price.product : price.product.id,
      )
    )?.data;
    data.push({
      id: line.id,
      object: 'item',
      adjustable_quantity: null,
      amount_discount: session.total_details?.amount_discount ?? 0,
      amount_subtotal: session.amount_subtotal ?? 0,
      amount_tax: session.total_details?.amount_tax ?? 0,
      amount_total: session.amount_total ?? 0,
      currency: price.currency,
      description: product?.name ?? null,
      metadata: {},
      price,
      quantity: line.quantity,
    });
  }
  return {
    object: 'list',
    data,
    has_more: false,
    url: `/v1/checkout/sessions/${session.id}/line_items`,
  };
}
