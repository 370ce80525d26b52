// The catalogue the simulator sells: one product and one monthly USD price per configured tier
// (pro 15.00, team 49.00, any other 10.00), created on start under the configured price ids.
import type Stripe from 'stripe';
import type { Documents } from '../store.ts';
import { nowSeconds } from '../time.ts';

const AMOUNTS: Record<string, number> = { pro: 1500, team: 4900 };
const DEFAULT_AMOUNT = 1000;

/** On the wire Stripe sends decimals as strings; the SDK turns them into its Decimal type. */
export const decimal = (value: number): Stripe.Decimal =>
  String(value) as unknown as Stripe.Decimal;

export const tierTitle = (tier: string): string =>
  tier.replace(/[-_]+/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase());

function buildProduct(tier: string, priceId: string, created: number): Stripe.Product {
  return {
    id: `prod_sim_${tier}`,
    object: 'product',
    active: true,
    created,
    default_price: priceId,
    description: `The ${tierTitle(tier)} plan (payments simulator)`,
    images: [],
    livemode: false,
    marketing_features: [],
    metadata: { tier },
    name: tierTitle(tier),
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

interface NewPrice {
  tier: string;
  id: string;
  product: string;
  created: number;
}

function buildPrice({ tier, id, product, created }: NewPrice): Stripe.Price {
  const amount = AMOUNTS[tier] ?? DEFAULT_AMOUNT;
  return {
    id,
    object: 'price',
    active: true,
    billing_scheme: 'per_unit',
    created,
    currency: 'usd',
    custom_unit_amount: null,
    livemode: false,
    lookup_key: tier,
    metadata: { tier },
    nickname: `${tierTitle(tier)} monthly`,
    product,
    recurring: {
      interval: 'month',
      interval_count: 1,
      meter: null,
      trial_period_days: null,
      usage_type: 'licensed',
    },
    tax_behavior: 'unspecified',
    tiers_mode: null,
    transform_quantity: null,
    type: 'recurring',
    unit_amount: amount,
    unit_amount_decimal: decimal(amount),
  };
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
    interval: 'month',
    interval_count: 1,
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

/** Creates the configured prices and their products, keeping `created` of ones already there. */
export async function seedCatalog(
  docs: Documents,
  prices: ReadonlyMap<string, string>,
): Promise<void> {
  for (const [tier, priceId] of prices) {
    const existing = await docs.get<Stripe.Price>('price', priceId);
    const created = existing?.data.created ?? nowSeconds();
    const product = buildProduct(tier, priceId, created);
    await docs.save('product', product);
    await docs.save('price', buildPrice({ tier, id: priceId, product: product.id, created }));
  }
}
