// /v1/payment_intents, /v1/charges and /v1/refunds, read: what a one-time checkout made
// (checkout-payment.ts) and its refunds (refunds.ts), retrieved and listed as Stripe serves them:
// intents by customer, charges by customer or payment intent, refunds by charge or payment intent.
// A thin event's related_object points here, so the SDK's fetchRelatedObject() finds it.
import type { FastifyPluginAsync } from 'fastify';
import type Stripe from 'stripe';
import type { SimContext } from '../context.ts';
import type { FormObject } from '../form.ts';
import { text } from '../params.ts';
import type { Documents, Filter } from '../store.ts';
import { readRoutes, type ReadResource } from './read-routes.ts';

/** Refunds by charge and/or payment intent: a payment intent's refunds are its charge's. */
async function refundFilter(params: FormObject, docs: Documents): Promise<Filter> {
  const charge = text(params, 'charge');
  const intentId = text(params, 'payment_intent');
  if (intentId === undefined) return { ref: charge };
  const intent = await docs.get<Stripe.PaymentIntent>('payment_intent', intentId);
  const ofIntent = intent?.data.latest_charge == null ? '' : String(intent.data.latest_charge);
  // Both: the refunds of the charge if it is the intent's, else none.
  return { ref: charge === undefined || charge === ofIntent ? ofIntent : '' };
}

const PAYMENT_RESOURCES: ReadResource[] = [
  {
    path: 'payment_intents',
    type: 'payment_intent',
    listParams: ['created', 'customer', 'customer_account'],
    filter: (params) => ({ customer: text(params, 'customer') }),
  },
  {
    path: 'charges',
    type: 'charge',
    listParams: ['created', 'customer', 'payment_intent', 'transfer_group'],
    filter: (params) => ({
      customer: text(params, 'customer'),
      ref: text(params, 'payment_intent'),
    }),
  },
  {
    path: 'refunds',
    type: 'refund',
    listParams: ['charge', 'created', 'payment_intent'],
    filter: refundFilter,
  },
];

export const paymentRoutes = (ctx: SimContext): FastifyPluginAsync =>
  readRoutes(ctx, PAYMENT_RESOURCES);
