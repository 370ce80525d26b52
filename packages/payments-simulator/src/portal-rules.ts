// What a billing portal session offers, as its configuration says: the prices a subscription may
// move to (the configured products' prices, monthly and yearly alike, when price updates are
// allowed; the quantity stays as it is), how it cancels (the configured mode; the account's
// default configuration offers both, as the simulator's portal always did), invoice history and
// card updates. And whether a change waits for the period's end: when any of the configuration's
// schedule_at_period_end conditions holds, "decreasing_item_amount" (the item's price × quantity
// becomes smaller, each per its own period: inferred, Stripe does not say whether it compares per
// period or per unit of time) or "shortening_interval" (a year to a month).
import type Stripe from 'stripe';
import { itemAmount } from './objects/charge.ts';
import { configurationOf, type Configuration } from './objects/portal-configurations.ts';
import { itemOf } from './objects/subscriptions.ts';
import type { Documents } from './store.ts';
import { periodEnd } from './time.ts';

export type CancelMode = 'at_period_end' | 'immediately';

export interface PortalRules {
  configuration: Configuration;
  /** The prices a subscription may move to, in the configuration's order. */
  prices: Stripe.Price[];
  cancel: CancelMode[];
  invoiceHistory: boolean;
  paymentMethodUpdate: boolean;
}

export async function portalRules(docs: Documents, configurationId: string): Promise<PortalRules> {
  const configuration = await configurationOf(docs, configurationId);
  const { subscription_update: update, subscription_cancel: cancel } = configuration.features;
  const products = update.enabled ? (update.products ?? []) : [];
  const pricesAllowed = update.enabled && update.default_allowed_updates.includes('price');
  const prices: Stripe.Price[] = [];
  for (const id of pricesAllowed ? products.flatMap((product) => product.prices) : []) {
    const price = (await docs.get<Stripe.Price>('price', id))?.data;
    if (price?.active) prices.push(price);
  }
  return {
    configuration,
    prices,
    cancel: !cancel.enabled
      ? []
      : configuration.is_default
        ? ['at_period_end', 'immediately']
        : [cancel.mode === 'immediately' ? 'immediately' : 'at_period_end'],
    invoiceHistory: configuration.features.invoice_history.enabled,
    paymentMethodUpdate: configuration.features.payment_method_update.enabled,
  };
}

/** How long a period of the price lasts, to compare intervals: its end from the epoch. */
const length = (price: Stripe.Price): number =>
  periodEnd(0, price.recurring ?? { interval: 'month' });

/**
 * Whether the configuration schedules the move of `subscription` to `to` (its quantity kept) at
 * the period's end. A trial's changes never wait: nothing was paid for the period (inferred).
 */
export function changeWaits(
  configuration: Configuration,
  subscription: Stripe.Subscription,
  to: Stripe.Price,
): boolean {
  if (subscription.status === 'trialing') return false;
  const { price: from, quantity = 1 } = itemOf(subscription);
  return configuration.features.subscription_update.schedule_at_period_end.conditions.some(
    ({ type }) =>
      type === 'decreasing_item_amount'
        ? itemAmount(to, quantity) < itemAmount(from, quantity)
        : length(to) < length(from),
  );
}
