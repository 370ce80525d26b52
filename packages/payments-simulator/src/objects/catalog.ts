// The catalogue the simulator sells: one product per configured tier, with a monthly and/or a
// yearly USD price under the configured ids (`pro`, `pro@month` or `pro@year`, as BILLING_PRICES
// names them): pro 15.00 a month, team 49.00, any other 10.00; a year costs ten months. Created on
// start, keeping the `created` of those already there.
import type Stripe from 'stripe';
import type { Documents } from '../store.ts';
import { nowSeconds } from '../time.ts';

const MONTHLY: Record<string, number> = { pro: 1500, team: 4900 };
const DEFAULT_MONTHLY = 1000;
const MONTHS_A_YEAR_COSTS = 10;

export const INTERVALS = ['month', 'year'] as const;
export type Interval = (typeof INTERVALS)[number];

/** One price the simulator sells: its tier, how often it bills, and its id. */
export interface CataloguePrice {
  tier: string;
  interval: Interval;
  id: string;
}

/** `tier` (monthly), `tier@month` or `tier@year` -> price id, as a list; another interval throws. */
export function cataloguePrices(prices: ReadonlyMap<string, string>): CataloguePrice[] {
  return [...prices].map(([key, id]) => {
    const [tier = '', interval = 'month'] = key.split('@');
    if (!(INTERVALS as readonly string[]).includes(interval))
      throw new Error(`prices: ${key}: the interval after @ is month or year`);
    return { tier, interval: interval as Interval, id };
  });
}

/** On the wire Stripe sends decimals as strings; the SDK turns them into its Decimal type. */
export const decimal = (value: number): Stripe.Decimal =>
  String(value) as unknown as Stripe.Decimal;

export const tierTitle = (tier: string): string =>
  tier.replace(/[-_]+/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase());

/** The plan a price sells, by its tier's name ("Pro"), whatever its interval. */
export const planTitle = (price: Stripe.Price): string =>
  tierTitle(price.metadata?.tier ?? price.lookup_key ?? price.id);

/** What one period of the price is: "month", "year", or "3 months". */
export function unitOf(price: Stripe.Price): string {
  const { interval = 'month', interval_count: count = 1 } = price.recurring ?? {};
  return count === 1 ? interval : `${count} ${interval}s`;
}

/** What a catalogue product says of itself; every other field is a service product's default. */
export interface ProductFacts {
  id: string;
  name: string;
  description: string;
  metadata: Record<string, string>;
  defaultPrice: string;
  created: number;
}

export function productObject(facts: ProductFacts): Stripe.Product {
  const { id, name, description, metadata, defaultPrice, created } = facts;
  return {
    id,
    object: 'product',
    active: true,
    created,
    default_price: defaultPrice,
    description,
    images: [],
    livemode: false,
    marketing_features: [],
    metadata,
    name,
    package_dimensions: null,
    shippable: null,
    statement_descriptor: null,
    tax_code: null,
    tax_details: null,
    type: 'service',
    unit_label: null,
    updated: created,
    url: null,
  };
}

const buildProduct = (tier: string, priceId: string, created: number): Stripe.Product =>
  productObject({
    id: `prod_sim_${tier}`,
    name: tierTitle(tier),
    description: `The ${tierTitle(tier)} plan (payments simulator)`,
    metadata: { tier },
    defaultPrice: priceId,
    created,
  });

interface NewPrice extends CataloguePrice {
  /** The key it was configured under: its lookup key. */
  key: string;
  product: string;
  created: number;
}

/** A price as Stripe returns it: per unit, in USD, active; recurring or one-time. */
export const priceObject = (
  fields: Pick<
    Stripe.Price,
    'id' | 'created' | 'lookup_key' | 'metadata' | 'nickname' | 'recurring'
  > & {
    product: string;
    amount: number;
  },
): Stripe.Price => ({
  id: fields.id,
  object: 'price',
  active: true,
  billing_scheme: 'per_unit',
  created: fields.created,
  currency: 'usd',
  custom_unit_amount: null,
  livemode: false,
  lookup_key: fields.lookup_key,
  metadata: fields.metadata,
  nickname: fields.nickname,
  product: fields.product,
  recurring: fields.recurring,
  tax_behavior: 'unspecified',
  tiers_mode: null,
  transform_quantity: null,
  type: fields.recurring === null ? 'one_time' : 'recurring',
  unit_amount: fields.amount,
  unit_amount_decimal: decimal(fields.amount),
});

function buildPrice({ tier, interval, id, key, product, created }: NewPrice): Stripe.Price {
  const monthly = MONTHLY[tier] ?? DEFAULT_MONTHLY;
  return priceObject({
    id,
    created,
    lookup_key: key,
    metadata: { tier },
    nickname: `${tierTitle(tier)} ${interval}ly`,
    product,
    recurring: {
      interval,
      interval_count: 1,
      meter: null,
      trial_period_days: null,
      usage_type: 'licensed',
    },
    amount: interval === 'year' ? monthly * MONTHS_A_YEAR_COSTS : monthly,
  });
}

/** The legacy `plan` every subscription item still carries, derived from its price. */
export function planOf(price: Stripe.Price): Stripe.Plan {
  return {
    id: price.id,
    object: 'plan',
    active: price.active,
    amount: price.unit_amount,
    amount_decimal: price.unit_amount_decimal,
    billing_scheme: 'per_unit',
    created: price.created,
    currency: price.currency,
    interval: price.recurring?.interval ?? 'month',
    interval_count: price.recurring?.interval_count ?? 1,
    livemode: false,
    metadata: price.metadata,
    meter: null,
    nickname: price.nickname,
    product: price.product,
    tiers_mode: null,
    transform_usage: null,
    trial_period_days: null,
    usage_type: 'licensed',
  };
}

/**
 * Creates the configured prices and their products (a tier's default price is its first), keeping
 * `created` of ones already there.
 */
export async function seedCatalog(
  docs: Documents,
  prices: ReadonlyMap<string, string>,
): Promise<void> {
  const keys = [...prices.keys()];
  const listed = cataloguePrices(prices);
  for (const [index, price] of listed.entries()) {
    const existing = await docs.get<Stripe.Price>('price', price.id);
    const created = existing?.data.created ?? nowSeconds();
    const first = listed.find((each) => each.tier === price.tier)!;
    const product = buildProduct(price.tier, first.id, created);
    await docs.save('product', product);
    await docs.save(
      'price',
      buildPrice({ ...price, key: keys[index]!, product: product.id, created }),
    );
  }
}
