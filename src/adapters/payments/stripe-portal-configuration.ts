// The billing portal configuration the service owns, on Stripe: marked as its own by
// `metadata[managed_by]`, it lets a subscriber move between exactly the configured prices (upgrades
// at once, prorated; a smaller amount or a shorter interval at the period's end), never change the
// quantity (an organisation's seats are the server's), cancel at the period's end, see invoices and
// replace the card. Found among the account's configurations, made when missing, and set back
// (with `active`) when a setting it depends on was changed, e.g. in the Dashboard. What it does not
// depend on (the business profile, the headline, the login page) is left as the account has it.
import type Stripe from 'stripe';
import type {
  OwnPortalConfiguration,
  PortalConfigurationSpec,
} from '../../domain/ports/payments-provider.ts';

export const OWN_CONFIGURATION_METADATA = { managed_by: 'billing-service' } as const;

type Configuration = Stripe.BillingPortal.Configuration;
type Params = Stripe.BillingPortal.ConfigurationCreateParams;

const CONDITIONS = ['decreasing_item_amount', 'shortening_interval'] as const;

export function portalConfigurationParams(spec: PortalConfigurationSpec): Params {
  return {
    name: 'billing-service',
    features: {
      customer_update: { enabled: false },
      invoice_history: { enabled: true },
      payment_method_update: { enabled: true },
      subscription_cancel: { enabled: true, mode: 'at_period_end', proration_behavior: 'none' },
      subscription_pause: { enabled: false },
      subscription_update: {
        enabled: true,
        default_allowed_updates: ['price'],
        products: spec.products.map(({ product, prices }) => ({
          product,
          prices,
          adjustable_quantity: { enabled: false },
        })),
        proration_behavior: 'create_prorations',
        schedule_at_period_end: { conditions: CONDITIONS.map((type) => ({ type })) },
      },
    },
    metadata: { ...OWN_CONFIGURATION_METADATA },
  };
}

const sameSet = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && [...a].sort().join() === [...b].sort().join();

const productsKey = (products: { product: string; prices: string[] }[]): string[] =>
  products.map(({ product, prices }) => `${product}:${[...prices].sort().join('+')}`);

/** The settings of `configuration` that are not as `spec` has them, by name; [] when none. */
export function portalConfigurationChanges(
  configuration: Configuration,
  spec: PortalConfigurationSpec,
): string[] {
  const { features } = configuration;
  const update = features.subscription_update;
  const products = update.products ?? [];
  const checks: [setting: string, holds: boolean][] = [
    ['active', configuration.active],
    ['customer_update', !features.customer_update.enabled],
    ['invoice_history', features.invoice_history.enabled],
    ['payment_method_update', features.payment_method_update.enabled],
    [
      'subscription_cancel',
      features.subscription_cancel.enabled && features.subscription_cancel.mode === 'at_period_end',
    ],
    ['subscription_pause', !features.subscription_pause.enabled],
    ['subscription_update.enabled', update.enabled],
    [
      'subscription_update.default_allowed_updates',
      sameSet(update.default_allowed_updates, ['price']),
    ],
    ['subscription_update.products', sameSet(productsKey(products), productsKey(spec.products))],
    [
      'subscription_update.adjustable_quantity',
      products.every((product) => !product.adjustable_quantity.enabled),
    ],
    ['subscription_update.proration_behavior', update.proration_behavior === 'create_prorations'],
    [
      'subscription_update.schedule_at_period_end',
      sameSet(
        update.schedule_at_period_end.conditions.map(({ type }) => type),
        CONDITIONS,
      ),
    ],
  ];
  return checks.flatMap(([setting, holds]) => (holds ? [] : [setting]));
}

const isOwn = (configuration: Configuration): boolean =>
  configuration.metadata?.managed_by === OWN_CONFIGURATION_METADATA.managed_by;

export async function ensurePortalConfiguration(
  stripe: Stripe,
  spec: PortalConfigurationSpec,
): Promise<OwnPortalConfiguration> {
  const all = await stripe.billingPortal.configurations
    .list({ is_default: false, limit: 100 })
    .autoPagingToArray({ limit: 1_000 });
  // The active one when there are several (one deactivated by hand and another made since).
  const own = all.filter(isOwn).sort((a, b) => Number(b.active) - Number(a.active))[0];
  const params = portalConfigurationParams(spec);
  if (own === undefined) {
    const made = await stripe.billingPortal.configurations.create(params);
    return { id: made.id, outcome: 'made', restored: [] };
  }
  const restored = portalConfigurationChanges(own, spec);
  if (restored.length === 0) return { id: own.id, outcome: 'kept', restored };
  await stripe.billingPortal.configurations.update(own.id, { ...params, active: true });
  return { id: own.id, outcome: 'restored', restored };
}
