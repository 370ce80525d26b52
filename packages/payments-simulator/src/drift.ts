// Drift: the provider's state moves and the application is never told. A change "made in the
// dashboard" whose events are lost: not delivered, and not even listed under
// delivery_success=false, as when an endpoint stayed disabled longer than Stripe keeps events, or
// when an application adopts an account that had customers before it. The application's state is
// then wrong until it reconciles with the provider (lists the subscriptions and applies them).
// Each change is exactly what the ordinary control or page does, with its events dropped.
import type Stripe from 'stripe';
import { attachCard } from './card-update.ts';
import { mutate, type Outcome, type SimContext } from './context.ts';
import { SUBSCRIPTION_ACTIONS } from './api/controls.ts';
import { invalidParam } from './errors.ts';
import { AUTOMATIC } from './events.ts';
import { buildCustomer, takeInvoiceNumber } from './objects/customers.ts';
import { buildInvoice } from './objects/invoices.ts';
import { buildSubscription, periodEndOf } from './objects/subscriptions.ts';
import { switchPrice } from './subscription-changes.ts';
import type { Changed } from './subscription-lifecycle.ts';
import { nowSeconds } from './time.ts';
import { requireRecurring } from './objects/one-time-prices.ts';

/** The context whose changes emit nothing. */
export const eventsLost = (ctx: SimContext): SimContext => ({ ...ctx, eventsLost: true });

type DriftAction = (ctx: SimContext, id: string, price?: string) => Promise<Outcome<Changed>>;

/** The lifecycle controls, and a plan switch (`price`), each with its events lost. */
export const DRIFT_ACTIONS: Record<string, DriftAction> = {
  ...Object.fromEntries(
    Object.entries(SUBSCRIPTION_ACTIONS).map(([name, action]): [string, DriftAction] => [
      name,
      (ctx, id) => action(eventsLost(ctx), id, AUTOMATIC),
    ]),
  ),
  switch: (ctx, id, price) => {
    if (price === undefined) throw invalidParam('Missing required param: price.', 'price');
    return switchPrice(eventsLost(ctx), id, price, AUTOMATIC);
  },
};

export interface Elsewhere {
  /** An existing customer; without one, a new customer is made with `email`. */
  customer?: string;
  email?: string;
  price: string;
  metadata?: Record<string, string>;
}

export interface Subscribed {
  customer: Stripe.Customer;
  subscription: Stripe.Subscription;
  invoice: Stripe.Invoice;
}

/**
 * An active subscription made outside the application (in the dashboard, by another system): a
 * paid first invoice, the customer made too when none is named, and no event of any of it.
 */
export function subscribeElsewhere(
  ctx: SimContext,
  input: Elsewhere,
): Promise<Outcome<Subscribed>> {
  return mutate(eventsLost(ctx), AUTOMATIC, async ({ docs }) => {
    const at = nowSeconds();
    const price = requireRecurring(
      (await docs.require<Stripe.Price>('price', input.price, { param: 'price' })).data,
      'price',
    );
    const existing =
      input.customer === undefined
        ? buildCustomer({ email: input.email })
        : (
            await docs.require<Stripe.Customer>('customer', input.customer, {
              lock: true,
              param: 'customer',
            })
          ).data;
    const taken = takeInvoiceNumber(existing);
    await docs.save('customer', taken.customer);
    const card = await attachCard(docs, taken.customer, '4242');
    const created = buildSubscription({
      customer: taken.customer.id,
      price,
      quantity: 1,
      metadata: input.metadata ?? {},
      description: null,
      start: at,
      periodEnd: periodEndOf(price, at),
      paymentMethod: card.id,
    });
    const invoice = buildInvoice({
      subscription: created,
      customer: taken.customer,
      reason: 'subscription_create',
      paid: true,
      at,
      number: taken.number,
    });
    const subscription: Stripe.Subscription = { ...created, latest_invoice: invoice.id };
    await docs.save('subscription', subscription);
    await docs.save('invoice', invoice);
    return { customer: taken.customer, subscription, invoice };
  });
}
