// Checkout sessions in subscription mode. The Stripe object does not show what the session will
// create (its price, quantity, subscription_data, customer_update); that is kept as the document's
// `extra`, and the price comes back through `expand[]=line_items` or GET .../line_items, as on
// Stripe. Its amounts are what is due today: nothing during a trial; a redeemed code's discount
// and the automatic tax otherwise.
import type Stripe from 'stripe';
import { newId } from '../ids.ts';
import type { Documents } from '../store.ts';
import { adjust, SIMULATED_TAX, type Adjustments } from './offers.ts';

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
}

/** A coupon or promotion code on the session (at most one, as on Stripe). */
export interface SessionDiscount {
  coupon: string;
  promotionCode: string | null;
}

export interface NewSession {
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
  discount: SessionDiscount | null;
  /** The discount's percentage off, for the amounts. */
  percentOff: number;
  automaticTax: boolean;
  /** Whether the customer's address is known already (automatic tax can compute at once). */
  addressKnown: boolean;
  customerUpdate: CustomerUpdate | null;
  taxIdCollection: boolean;
  created: number;
  expiresAt: number;
}

/** Whether the session's subscription starts with a trial. */
export const hasTrial = (data: SubscriptionData): boolean =>
  (data.trial_period_days ?? null) !== null || (data.trial_end ?? null) !== null;

/** What is due today: the price, less the discount, plus tax; nothing during a trial. */
export function totalsOf(
  amount: number,
  trial: boolean,
  adjustments: Adjustments,
): Pick<Stripe.Checkout.Session, 'amount_subtotal' | 'amount_total' | 'total_details'> {
  const due = trial ? 0 : amount;
  const { discount, tax } = adjust(due, adjustments);
  return {
    amount_subtotal: due,
    amount_total: due - discount + tax,
    total_details: { amount_discount: discount, amount_shipping: 0, amount_tax: tax },
  };
}

export const sessionDiscounts = (
  discount: SessionDiscount | null,
): Stripe.Checkout.Session.Discount[] =>
  discount === null ? [] : [{ coupon: discount.coupon, promotion_code: discount.promotionCode }];

export function buildSession(input: NewSession): {
  session: Stripe.Checkout.Session;
  extra: SessionExtra;
} {
  const amount = (input.price.unit_amount ?? 0) * input.quantity;
  const totals = totalsOf(amount, hasTrial(input.subscriptionData), {
    discount: input.discount === null ? null : { id: '', percentOff: input.percentOff },
    taxPercent: input.automaticTax ? SIMULATED_TAX.percent : null,
  });
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
  };
  const extra: SessionExtra = {
    line_items: [{ id: newId('li_'), price: input.price.id, quantity: input.quantity }],
    subscription_data: input.subscriptionData,
    customer_update: input.customerUpdate,
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

export async function lineItemsOf(
  docs: Documents,
  sessionId: string,
  extra: SessionExtra,
): Promise<Stripe.ApiList<Stripe.LineItem>> {
  const data: Stripe.LineItem[] = [];
  for (const line of extra.line_items) {
    const price = (await docs.require<Stripe.Price>('price', line.price)).data;
    const amount = (price.unit_amount ?? 0) * line.quantity;
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
      amount_discount: 0,
      amount_subtotal: amount,
      amount_tax: 0,
      amount_total: amount,
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
    url: `/v1/checkout/sessions/${sessionId}/line_items`,
  };
}
