// /v1/payment_intents, /v1/charges and /v1/refunds, read: what a one-time checkout made
// (checkout-payment.ts) and its refunds (refunds.ts), retrieved and listed as Stripe serves them:
// intents by customer, charges by customer or payment intent, refunds by charge or payment intent.
// A thin event's related_object points here, so the SDK's fetchRelatedObject() finds it.
import type { FastifyPluginAsync } from 'fastify';
import type Stripe from 'stripe';
import type { SimContext } from '../context.ts';
import { Expander } from '../expand.ts';
import type { FormObject } from '../form.ts';
import { allowOnly, expansions, text } from '../params.ts';
import type { Documents, Filter, SimType } from '../store.ts';
import { listOf, pageOfParams, PAGE_PARAMS, paramsOf } from './request.ts';

interface Resource {
  path: string;
  type: SimType;
  listParams: string[];
  filter(params: FormObject, docs: Documents): Filter | Promise<Filter>;
}

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

const PAYMENT_RESOURCES: Resource[] = [
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

/** GET /v1/<path>/:id and GET /v1/<path> for each resource. */
export function paymentRoutes(ctx: SimContext): FastifyPluginAsync {
  return async (app) => {
    const expander = new Expander(ctx.docs, () => ctx.baseUrl);
    for (const resource of PAYMENT_RESOURCES) {
      app.get<{ Params: { id: string } }>(`/${resource.path}/:id`, async (request) => {
        const params = paramsOf(request);
        allowOnly(params, ['expand']);
        const { data } = await ctx.docs.require<object>(resource.type, request.params.id);
        return expander.expand(data, expansions(params));
      });
      app.get(`/${resource.path}`, async (request) => {
        const params = paramsOf(request);
        allowOnly(params, [...PAGE_PARAMS, ...resource.listParams]);
        const filter = await resource.filter(params, ctx.docs);
        const page = await ctx.docs.list<object>(resource.type, filter, pageOfParams(params));
        const data = page.data.map((row) => row.data);
        return expander.expand(
          listOf(`/v1/${resource.path}`, data, page.hasMore),
          expansions(params),
        );
      });
    }
  };
}
