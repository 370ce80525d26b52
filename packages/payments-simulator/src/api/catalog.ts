// Read-only objects: prices, products, invoices, coupons and promotion codes (retrieve and list;
// the simulator has one test code, SAVE20: objects/offers.ts). Prices are listed by product and
// `active`, and also by `type`, `currency`, `recurring[interval]` and `lookup_keys` (those on the
// page read: the catalogue is small).
import type { FastifyPluginAsync } from 'fastify';
import type { SimContext } from '../context.ts';
import { Expander } from '../expand.ts';
import type Stripe from 'stripe';
import type { FormObject } from '../form.ts';
import { allowOnly, array, expansions, flag, hash, oneOf, text } from '../params.ts';
import type { Filter, SimType } from '../store.ts';
import { invalidParam } from '../errors.ts';
import { listOf, pageOfParams, PAGE_PARAMS, paramsOf } from './request.ts';

interface Resource {
  path: string;
  type: SimType;
  listParams: string[];
  filter(params: FormObject): Filter;
  /** What the list keeps of the page read, when a parameter filters on what no column holds. */
  keep?(params: FormObject): (doc: object) => boolean;
}

/** The price filters no column holds: type, currency, recurring[interval], lookup_keys. */
function priceFilter(params: FormObject): (doc: object) => boolean {
  const type = oneOf(params, 'type', ['one_time', 'recurring'] as const);
  const currency = text(params, 'currency')?.toLowerCase();
  const recurring = hash(params, 'recurring');
  if (recurring !== undefined)
    allowOnly(recurring, ['interval', 'meter', 'usage_type'], 'recurring');
  const interval =
    recurring &&
    oneOf(recurring, 'interval', ['day', 'month', 'week', 'year'] as const, 'recurring[interval]');
  const keys = array(params, 'lookup_keys')?.map(String);
  if (keys !== undefined && keys.length > 10)
    throw invalidParam('You may only specify up to 10 lookup keys.', 'lookup_keys');
  return (doc) => {
    const price = doc as Stripe.Price;
    return (
      (type === undefined || price.type === type) &&
      (currency === undefined || price.currency === currency) &&
      (interval === undefined || price.recurring?.interval === interval) &&
      (keys === undefined || keys.includes(price.lookup_key ?? ''))
    );
  };
}

const RESOURCES: Resource[] = [
  {
    path: 'prices',
    type: 'price',
    listParams: ['active', 'created', 'currency', 'lookup_keys', 'product', 'recurring', 'type'],
    filter: (params) => {
      const active = flag(params, 'active');
      return {
        ref: text(params, 'product'),
        status: active === undefined ? undefined : [active ? 'active' : 'inactive'],
      };
    },
    keep: priceFilter,
  },
  {
    path: 'products',
    type: 'product',
    listParams: ['active', 'created', 'ids', 'shippable', 'url'],
    filter: (params) => {
      const active = flag(params, 'active');
      return { status: active === undefined ? undefined : [active ? 'active' : 'inactive'] };
    },
  },
  {
    path: 'invoices',
    type: 'invoice',
    listParams: [
      'collection_method',
      'created',
      'customer',
      'customer_account',
      'due_date',
      'status',
      'subscription',
    ],
    filter: (params) => {
      const status = oneOf(params, 'status', [
        'draft',
        'open',
        'paid',
        'uncollectible',
        'void',
      ] as const);
      return {
        customer: text(params, 'customer'),
        ref: text(params, 'subscription'),
        status: status === undefined ? undefined : [status],
      };
    },
  },
  { path: 'coupons', type: 'coupon', listParams: ['created'], filter: () => ({}) },
  {
    path: 'promotion_codes',
    type: 'promotion_code',
    listParams: ['active', 'code', 'coupon', 'created', 'customer', 'customer_account'],
    filter: (params) => {
      const active = flag(params, 'active');
      return {
        ref: text(params, 'code')?.toUpperCase(),
        customer: text(params, 'customer'),
        status: active === undefined ? undefined : [active ? 'active' : 'inactive'],
      };
    },
  },
];

export function catalogRoutes(ctx: SimContext): FastifyPluginAsync {
  return async (app) => {
    const expander = new Expander(ctx.docs, () => ctx.baseUrl);
    for (const resource of RESOURCES) {
      app.get<{ Params: { id: string } }>(`/${resource.path}/:id`, async (request) => {
        const params = paramsOf(request);
        allowOnly(params, ['expand']);
        const { data } = await ctx.docs.require<object>(resource.type, request.params.id);
        return expander.expand(data, expansions(params));
      });
      app.get(`/${resource.path}`, async (request) => {
        const params = paramsOf(request);
        allowOnly(params, [...PAGE_PARAMS, ...resource.listParams]);
        const keep = resource.keep?.(params) ?? (() => true);
        const page = await ctx.docs.list<object>(
          resource.type,
          resource.filter(params),
          pageOfParams(params),
        );
        return expander.expand(
          listOf(
            `/v1/${resource.path}`,
            page.data.map((row) => row.data).filter(keep),
            page.hasMore,
          ),
          expansions(params),
        );
      });
    }
  };
}
