// Typed factories for Stripe event fixtures in the current API shapes, signed inside the test
// with the stripe package's own signer so the service's real verification runs.
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import type { FastifyInstance } from 'fastify';

const stripe = new Stripe('sk_test_fixtures');
const id = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);

export function subscriptionObject(
  overrides: Partial<Stripe.Subscription> & { priceId?: string; periodEnd?: number } = {},
): Stripe.Subscription {
  const { priceId = 'price_sim_pro', periodEnd = now() + 30 * 86_400, ...rest } = overrides;
  const subscriptionId = rest.id ?? id('sub');
  return {
    id: subscriptionId,
    object: 'subscription',
    customer: id('cus'),
    status: 'active',
    cancel_at_period_end: false,
    created: now() - 60,
    livemode: false,
    metadata: {},
    items: {
      object: 'list',
      has_more: false,
      url: `/v1/subscription_items?subscription=${subscriptionId}`,
      data: [
        {
          id: id('si'),
          object: 'subscription_item',
          subscription: subscriptionId,
          quantity: 1,
          current_period_start: periodEnd - 30 * 86_400,
          current_period_end: periodEnd,
          price: {
            id: priceId,
            object: 'price',
            currency: 'usd',
            unit_amount: 1500,
            recurring: { interval: 'month', interval_count: 1 },
          },
        },
      ],
    },
    ...rest,
  } as unknown as Stripe.Subscription;
}

export function checkoutSessionObject(
  overrides: Partial<Stripe.Checkout.Session> = {},
): Stripe.Checkout.Session {
  return {
    id: id('cs_test'),
    object: 'checkout.session',
    mode: 'subscription',
    status: 'complete',
    payment_status: 'paid',
    client_reference_id: null,
    customer: id('cus'),
    subscription: id('sub'),
    livemode: false,
    metadata: {},
    ...overrides,
  } as unknown as Stripe.Checkout.Session;
}

export function invoiceObject(
  subscriptionId: string,
  customer: string,
  overrides: Partial<Stripe.Invoice> = {},
): Stripe.Invoice {
  return {
    id: id('in'),
    object: 'invoice',
    customer,
    status: 'paid',
    livemode: false,
    parent: {
      type: 'subscription_details',
      quote_details: null,
      subscription_details: { subscription: subscriptionId, metadata: {} },
    },
    ...overrides,
  } as unknown as Stripe.Invoice;
}

export interface FixtureEvent {
  id: string;
  type: string;
  created: number;
  livemode: boolean;
  object: 'event';
  api_version: string;
  data: { object: unknown };
}

export function eventOf(
  type: string,
  object: unknown,
  overrides: Partial<FixtureEvent> = {},
): FixtureEvent {
  return {
    id: id('evt'),
    object: 'event',
    type,
    created: now(),
    livemode: false,
    api_version: '2026-10-28.endive',
    data: { object },
    ...overrides,
  };
}

export function signedHeaders(
  payload: string,
  secret: string,
  timestamp = now(),
): Record<string, string> {
  return {
    'content-type': 'application/json; charset=utf-8',
    'stripe-signature': stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp }),
  };
}

/** Delivers an event to the service as Stripe would: JSON body, signed over the exact bytes. */
export function deliver(
  app: FastifyInstance,
  event: FixtureEvent,
  secret = 'whsec_local_simulator',
  timestamp?: number,
) {
  const payload = JSON.stringify(event);
  return app.inject({
    method: 'POST',
    url: '/api/v1/webhooks/payments',
    payload,
    headers: signedHeaders(payload, secret, timestamp),
  });
}
