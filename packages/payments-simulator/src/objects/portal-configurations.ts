// Billing portal configurations (`bpc_...`), the object of the pinned API version: every feature
// present, with the values Stripe gives what a request leaves out (a feature not sent is off;
// subscription_update's proration_behavior `none`, trial_update_behavior `end_trial`;
// subscription_pause's one-month option). A change merges into what is there (nested hashes merged,
// arrays replaced). The account's default configuration (`is_default`, as every Stripe account has
// one, made in the Dashboard) is the simulator's: all its products and prices, switches prorated
// and invoiced at once, cancellation at the period end or at once, invoice history, card updates.
import type Stripe from 'stripe';
import { invalidParam, noSuch } from '../errors.ts';
import type { Documents } from '../store.ts';
import { nowSeconds } from '../time.ts';

export type Configuration = Stripe.BillingPortal.Configuration;
type Features = Configuration['features'];
export type PortalProduct = Stripe.BillingPortal.Configuration.Features.SubscriptionUpdate.Product;

export const DEFAULT_CONFIGURATION = 'bpc_simulator_default';

/** A change to a configuration: any part of it, nested, as a request gives it. */
export type ConfigurationChanges = DeepPartial<
  Pick<
    Configuration,
    'active' | 'business_profile' | 'default_return_url' | 'features' | 'login_page' | 'name'
  >
>;
type DeepPartial<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/** What a product offers by default: its prices, the quantity not adjustable. */
export const portalProduct = (product: string, prices: string[]): PortalProduct => ({
  adjustable_quantity: { enabled: false, maximum: null, minimum: 1 },
  prices,
  product,
});

const BLANK_FEATURES: Features = {
  customer_update: { allowed_updates: [], enabled: false },
  invoice_history: { enabled: false },
  payment_method_update: { enabled: false, payment_method_configuration: null },
  subscription_cancel: {
    cancellation_reason: { enabled: false, feedback_options: null, options: [] },
    enabled: false,
    mode: 'at_period_end',
    proration_behavior: 'none',
  },
  subscription_pause: {
    duration: {
      interval_options: [{ interval: 'month', interval_count: 1 }],
      type: 'interval_options',
    },
    enabled: false,
  },
  subscription_update: {
    billing_cycle_anchor: null,
    default_allowed_updates: [],
    enabled: false,
    proration_behavior: 'none',
    schedule_at_period_end: { conditions: [] },
    trial_update_behavior: 'end_trial',
  },
};

/** `changes` merged into `target`: hashes key by key, anything else (arrays too) replaced. */
function merged<T>(target: T, changes: unknown): T {
  if (changes === undefined) return target;
  const hash = (value: unknown): value is Record<string, unknown> =>
    typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!hash(changes) || !hash(target)) return changes as T;
  const out: Record<string, unknown> = { ...target };
  for (const [key, value] of Object.entries(changes)) out[key] = merged(out[key], value);
  return out as T;
}

export function newConfiguration(
  id: string,
  changes: ConfigurationChanges,
  metadata: Stripe.Metadata,
): Configuration {
  const created = nowSeconds();
  const blank: Configuration = {
    id,
    object: 'billing_portal.configuration',
    active: true,
    application: null,
    business_profile: { headline: null, privacy_policy_url: null, terms_of_service_url: null },
    created,
    default_return_url: null,
    features: BLANK_FEATURES,
    is_default: false,
    livemode: false,
    login_page: { enabled: false, url: null },
    metadata,
    name: null,
    updated: created,
  };
  return merged(blank, changes);
}

export function changedConfiguration(
  configuration: Configuration,
  changes: ConfigurationChanges,
  metadata: Stripe.Metadata,
): Configuration {
  return { ...merged(configuration, changes), metadata, updated: nowSeconds() };
}

const MAX_PRODUCTS = 10;
const PRODUCTS = 'features[subscription_update][products]';
const CANCEL_PRORATION = 'features[subscription_cancel][proration_behavior]';

/**
 * Refuses a configuration as a change would leave it, as Stripe refuses it: more than ten products,
 * a product or price that does not exist, a price of another product or not recurring (the
 * messages are the simulator's), and cancellation prorations it cannot make.
 */
export async function checkConfiguration(
  docs: Documents,
  configuration: Configuration,
): Promise<void> {
  const products = configuration.features.subscription_update.products ?? [];
  if (products.length > MAX_PRODUCTS)
    throw invalidParam(`You can list at most ${MAX_PRODUCTS} products.`, PRODUCTS);
  for (const [index, { product, prices }] of products.entries()) {
    await docs.require('product', product, { param: `${PRODUCTS}[${index}][product]` });
    for (const [each, id] of prices.entries()) {
      const param = `${PRODUCTS}[${index}][prices][${each}]`;
      const { data: price } = await docs.require<Stripe.Price>('price', id, { param });
      if (price.product !== product)
        throw invalidParam(`The price ${id} does not belong to the product ${product}.`, param);
      if (price.type !== 'recurring')
        throw invalidParam(`The price ${id} is not a recurring price.`, param);
    }
  }
  const cancel = configuration.features.subscription_cancel;
  if (cancel.proration_behavior === 'always_invoice')
    throw invalidParam(
      `Invalid ${CANCEL_PRORATION}: must be none or create_prorations (always_invoice is not supported).`,
      CANCEL_PRORATION,
    );
  if (cancel.proration_behavior === 'create_prorations' && cancel.mode !== 'immediately')
    throw invalidParam(
      `${CANCEL_PRORATION} create_prorations is only compatible with features[subscription_cancel][mode]=immediately.`,
      CANCEL_PRORATION,
    );
}

/** The configuration `id`, or Stripe's "No such configuration" naming `param` (404 when the URL names it). */
export async function configurationOf(
  docs: Documents,
  id: string,
  options: { param?: string; lock?: boolean } = {},
): Promise<Configuration> {
  const found = await docs.get<Configuration>('billing_portal.configuration', id, options);
  if (found === null) throw noSuch('configuration', id, options.param);
  return found.data;
}

/** The account's default: every product with its active prices, as the simulator's portal always offered. */
function defaultChanges(products: PortalProduct[]): ConfigurationChanges {
  return {
    features: {
      invoice_history: { enabled: true },
      payment_method_update: { enabled: true },
      subscription_cancel: { enabled: true },
      subscription_update: {
        enabled: true,
        default_allowed_updates: ['price'],
        products,
        proration_behavior: 'always_invoice',
        trial_update_behavior: 'continue_trial',
      },
    },
  };
}

/**
 * Writes the default configuration for the catalogue's plans (its recurring prices: a one-time
 * price is never a subscription's), keeping `created` of one already there.
 */
export async function seedPortalConfiguration(docs: Documents): Promise<void> {
  const prices = (
    await docs.list<Stripe.Price>('price', { status: ['active'] }, { limit: 100 })
  ).data
    .map((row) => row.data)
    .filter((price) => price.type === 'recurring');
  const byProduct = new Map<string, string[]>();
  for (const price of prices.reverse())
    byProduct.set(String(price.product), [
      ...(byProduct.get(String(price.product)) ?? []),
      price.id,
    ]);
  const products = [...byProduct].map(([product, ids]) => portalProduct(product, ids));
  const existing = await docs.get<Configuration>(
    'billing_portal.configuration',
    DEFAULT_CONFIGURATION,
  );
  const made = newConfiguration(DEFAULT_CONFIGURATION, defaultChanges(products), {});
  const created = existing?.data.created ?? made.created;
  await docs.save('billing_portal.configuration', { ...made, created, is_default: true });
}
