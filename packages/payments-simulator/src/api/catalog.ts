// Read-only objects: prices, products, invoices, coupons and promotion codes (retrieve and list;
// the simulator has one test code, SAVE20: objects/offers.ts). Prices are listed by product and
// `active`, and also by `type`, `currency`, `recurring[interval]` and `lookup_keys` (those on the
// page read: the catalogue is small).
import type { FastifyPluginAsync } from 'fastify';
import type { SimContext } from '../context.ts';
import type Stripe from 'stripe';
import type { FormObject } from '../form.ts';
import { allowOnly, array, flag, hash, oneOf, text } from '../params.ts';
import { invalidParam } from '../errors.ts';
import { readRoutes, type ReadResource } from './read-routes.ts';

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

const RESOURCES: ReadResource[] = [
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

export const catalogRoutes = (ctx: SimContext): FastifyPluginAsync => readRoutes(ctx, RESOURCES);
