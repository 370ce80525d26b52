// Checkout sessions in subscription mode. The Stripe object does not show what the session will
// create (its price, quantity, subscription_data); that is kept as the document's `extra`, and
// the price comes back through `expand[]=line_items` or GET .../line_items, as on Stripe.
import type Stripe from 'stripe';
import { newId } from '../ids.ts';
import type { Documents } from '../store.ts';

export interface SessionLine {
  id: string;
  price: string;
  quantity: number;
}

export interface SessionExtra {
  line_items: SessionLine[];
  subscription_data: { metadata: Record<string, string>; description: string | null };
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
  subscriptionData: SessionExtra['subscription_data'];
  created: number;
  expiresAt: number;
}

export function buildSession(input: NewSession): {
  session: Stripe.Checkout.Session;
  extra: SessionExtra;
} {
  const amount = (input.price.unit_amount ?? 0) * input.quantity;
  const session: Stripe.Checkout.Session = {
    id: newId('cs_test_', 58),
    object: 'checkout.session',
    adaptive_pricing: null,
    after_expiration: null,
    allow_promotion_codes: null,
    allowed_payment_method_types: null,
    amount_subtotal: amount,
    amount_total: amount,
    automatic_tax: { enabled: false, liability: null, provider: null, status: null },
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
    discounts: [],
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
    payment_method_collection: 'always',
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
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    ui_mode: 'hosted_page',
    url: null,
    wallet_options: null,
  };
  const extra: SessionExtra = {
    line_items: [{ id: newId('li_'), price: input.price.id, quantity: input.quantity }],
    subscription_data: input.subscriptionData,
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
