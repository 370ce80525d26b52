// What a billing portal session offers, as its configuration says: the prices a subscription may
// move to (the configured products' prices, monthly and yearly alike, when price updates are
// allowed), whether and within what its quantity may change (quantity updates allowed and the
// product's adjustable_quantity enabled), how it cancels (the configured mode; the account's
// default configuration offers both, as the simulator's portal always did), invoice history and
// card updates. And whether a change waits for the period's end: when any of the configuration's
// schedule_at_period_end conditions holds, "decreasing_item_amount" (the item's price × quantity
// becomes smaller, each per its own period: inferred, Stripe does not say whether it compares per
// period or per unit of time) or "shortening_interval" (a year to a month).
import type Stripe from 'stripe';
import { itemAmount } from './objects/charge.ts';
import {
  configurationOf,
  type Configuration,
  type PortalProduct,
} from './objects/portal-configurations.ts';
import type { Documents } from './store.ts';
import { periodEnd } from './time.ts';

export type CancelMode = 'at_period_end' | 'immediately';

export interface PortalRules {
  configuration: Configuration;
  /** The prices a subscription may move to, in the configuration's order. */
  prices: Stripe.Price[];
  /** How the quantity of a price's product may change; null when it may not. */
  quantity(price: Stripe.Price): PortalProduct['adjustable_quantity'] | null;
  cancel: CancelMode[];
  invoiceHistory: boolean;
  paymentMethodUpdate: boolean;
}

export async function portalRules(docs: Documents, configurationId: string): Promise<PortalRules> {
  const configuration = await configurationOf(docs, configurationId);
  const { subscription_update: update, subscription_cancel: cancel } = configuration.features;
  const products = update.enabled ? (update.products ?? []) : [];
  const allowed = (what: 'price' | 'quantity') =>
    update.enabled && update.default_allowed_updates.includes(what);
  const prices: Stripe.Price[] = [];
  for (const id of allowed('price') ? products.flatMap((product) => product.prices) : []) {
    const price = (await docs.get<Stripe.Price>('price', id))?.data;
    if (price?.active) prices.push(price);
  }
  return {
    configuration,
    prices,
    quantity: (price) => {
      const product = products.find((each) => each.product === String(price.product));
      const adjustable = product?.adjustable_quantity;
      return allowed('quantity') && adjustable?.enabled ? adjustable : null;
    },
    cancel: !cancel.enabled
      ? []
      : configuration.is_default
        ? ['at_period_end', 'immediately']
        : [cancel.mode === 'immediately' ? 'immediately' : 'at_period_end'],
    invoiceHistory: configuration.features.invoice_history.enabled,
    paymentMethodUpdate: configuration.features.payment_method_update.enabled,
  };
}

/** An item as it is or would be: its price and quantity. */
export interface ItemState {
  price: Stripe.Price;
  quantity: number;
}

/** How long a period of the price lasts, to compare intervals: its end from the epoch. */
const length = (price: Stripe.Price): number =>
  periodEnd(0, price.recurring ?? { interval: 'month' });

/** Whether the configuration schedules the change from `from` to `to` at the period's end. */
export function waitsForPeriodEnd(
  configuration: Configuration,
  from: ItemState,
  to: ItemState,
): boolean {
  return configuration.features.subscription_update.schedule_at_period_end.conditions.some(
    ({ type }) =>
      type === 'decreasing_item_amount'
        ? itemAmount(to.price, to.quantity) < itemAmount(from.price, from.quantity)
        : length(to.price) < length(from.price),
  );
}
