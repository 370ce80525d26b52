// POST /v1/subscriptions: a subscription made at the provider directly (the dashboard's or the
// API's way, not a checkout), as Stripe makes it: trialing with a $0 invoice when it has a trial;
// otherwise active with its first invoice paid when the customer has a payment method; incomplete
// with the invoice open under payment_behavior=default_incomplete; refused without either. Events:
// customer.subscription.created, invoice.created, invoice.finalized, then invoice.paid when paid
// (and customer.subscription.trial_will_end at once for a trial of three days or less).
import type Stripe from 'stripe';
import { mutate, type Outcome, type SimContext } from './context.ts';
import { invalidParam } from './errors.ts';
import type { Trigger } from './events.ts';
import { announceInvoice } from './invoicing.ts';
import type { SessionDiscount } from './objects/checkout.ts';
import { takeInvoiceNumber } from './objects/customers.ts';
import { buildSubscription, periodEndOf } from './objects/subscriptions.ts';
import type { Documents } from './store.ts';
import type { Changed } from './subscription-lifecycle.ts';
import { announceTrialEndingSoon, startSubscription, trialEndOf } from './subscription-start.ts';
import { nowSeconds } from './time.ts';

type MissingPaymentMethod = Stripe.Subscription.TrialSettings.EndBehavior.MissingPaymentMethod;

export interface SubscriptionRequest {
  customer: string;
  price: string;
  quantity: number;
  metadata: Record<string, string>;
  description: string | null;
  trialDays: number | null;
  trialEnd: number | null;
  missingPaymentMethod: MissingPaymentMethod | null;
  incompleteAllowed: boolean;
  defaultPaymentMethod: string | null;
  automaticTax: boolean;
  discount: SessionDiscount | null;
  /** Applied to the new subscription before it is stored (subscription-changes.ts). */
  schedule: (subscription: Stripe.Subscription) => Stripe.Subscription;
}

/** The customer (locked) and the price, refused as Stripe refuses them. */
async function customerAndPrice(
  docs: Documents,
  input: SubscriptionRequest,
): Promise<{ customer: Stripe.Customer; price: Stripe.Price }> {
  const { data: customer } = await docs.require<Stripe.Customer>('customer', input.customer, {
    lock: true,
    param: 'customer',
  });
  const { data: price } = await docs.require<Stripe.Price>('price', input.price, {
    param: 'items[0][price]',
  });
  if (price.type !== 'recurring' || !price.active)
    throw invalidParam(
      'The price specified is not a recurring price or is inactive.',
      'items[0][price]',
    );
  if (input.defaultPaymentMethod !== null)
    await docs.require('payment_method', input.defaultPaymentMethod, {
      param: 'default_payment_method',
    });
  if (input.automaticTax && customer.address == null)
    throw invalidParam(
      "The customer's location isn't recognized. Add a valid address to the customer to calculate tax automatically.",
      'automatic_tax[enabled]',
      'customer_tax_location_invalid',
    );
  return { customer, price };
}

/** The payment method the first invoice is charged to: the one given, else the customer's. */
function paymentMethodOf(input: SubscriptionRequest, customer: Stripe.Customer): string | null {
  const method =
    input.defaultPaymentMethod ?? customer.invoice_settings?.default_payment_method ?? null;
  return typeof method === 'string' ? method : (method?.id ?? null);
}

export function createSubscription(
  ctx: SimContext,
  input: SubscriptionRequest,
  trigger: Trigger,
): Promise<Outcome<Changed>> {
  return mutate(ctx, trigger, async (unit) => {
    const { customer, price } = await customerAndPrice(unit.docs, input);
    const at = nowSeconds();
    const trialEnd = trialEndOf({ days: input.trialDays, end: input.trialEnd }, at);
    const paymentMethod = paymentMethodOf(input, customer);
    if (trialEnd === null && paymentMethod === null && !input.incompleteAllowed)
      throw invalidParam(
        'This customer has no attached payment source or default payment method. Please consider adding a default payment method. For more information, visit https://stripe.com/docs/billing/subscriptions/payment-methods-setting#payment-method-priority.',
        undefined,
        'resource_missing',
      );
    const paid = trialEnd !== null || paymentMethod !== null;
    const taken = takeInvoiceNumber(customer);
    await unit.docs.save('customer', taken.customer);
    const built = buildSubscription({
      customer: customer.id,
      price,
      quantity: input.quantity,
      metadata: input.metadata,
      description: input.description,
      start: at,
      periodEnd: trialEnd ?? periodEndOf(price, at),
      trialEnd,
      missingPaymentMethod: input.missingPaymentMethod ?? undefined,
      paymentMethod,
      automaticTax: input.automaticTax,
      status: paid ? 'active' : 'incomplete',
    });
    const { subscription, invoice } = await startSubscription(unit.docs, {
      subscription: input.schedule(built),
      customer: taken.customer,
      number: taken.number,
      at,
      paid,
      discount: input.discount && { ...input.discount, checkoutSession: null },
    });
    await unit.emit('customer.subscription.created', subscription);
    await announceInvoice(unit, invoice, paid ? 'paid' : 'awaited');
    await announceTrialEndingSoon(unit, subscription, at);
    return { subscription, invoice };
  });
}
