// POST /v1/subscriptions: a subscription made at the provider directly (the dashboard's or the
// API's way, not a checkout), as Stripe makes it: trialing with a $0 invoice when it has a trial;
// otherwise active with its first invoice paid when the customer has a payment method; incomplete
// with the invoice open under payment_behavior=default_incomplete; refused without either. Events:
// customer.subscription.created, invoice.created, invoice.finalized, then invoice.paid when paid
// (and customer.subscription.trial_will_end at once for a trial of three days or less).
import type Stripe from 'stripe';
import { TRIAL_NOTICE_SECONDS } from './checkout-flow.ts';
import { mutate, type Outcome, type SimContext } from './context.ts';
import { invalidParam } from './errors.ts';
import type { Trigger } from './events.ts';
import type { SessionDiscount } from './objects/checkout.ts';
import { takeInvoiceNumber } from './objects/customers.ts';
import { buildInvoice, trialLines } from './objects/invoices.ts';
import { buildDiscount, percentOff, redeem, SIMULATED_TAX } from './objects/offers.ts';
import { earlierStages } from './objects/proration.ts';
import { buildSubscription } from './objects/subscriptions.ts';
import type { Changed } from './subscription-lifecycle.ts';
import { addMonth, nowSeconds } from './time.ts';

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

const DAY = 86_400;

export function createSubscription(
  ctx: SimContext,
  input: SubscriptionRequest,
  trigger: Trigger,
): Promise<Outcome<Changed>> {
  return mutate(ctx, trigger, async ({ docs, emit }) => {
    const customer = (
      await docs.require<Stripe.Customer>('customer', input.customer, {
        lock: true,
        param: 'customer',
      })
    ).data;
    const price = (
      await docs.require<Stripe.Price>('price', input.price, { param: 'items[0][price]' })
    ).data;
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
    const at = nowSeconds();
    const trialEnd =
      input.trialEnd ?? (input.trialDays === null ? null : at + input.trialDays * DAY);
    const paymentMethod =
      input.defaultPaymentMethod ?? customer.invoice_settings?.default_payment_method ?? null;
    if (trialEnd === null && paymentMethod === null && !input.incompleteAllowed)
      throw invalidParam(
        'This customer has no attached payment source or default payment method. Please consider adding a default payment method. For more information, visit https://stripe.com/docs/billing/subscriptions/payment-methods-setting#payment-method-priority.',
        undefined,
        'resource_missing',
      );
    const paid = trialEnd !== null || paymentMethod !== null;
    const taken = takeInvoiceNumber(customer);
    await docs.save('customer', taken.customer);
    const built = input.schedule(
      buildSubscription({
        customer: customer.id,
        price,
        quantity: input.quantity,
        metadata: input.metadata,
        description: input.description,
        start: at,
        periodEnd: trialEnd ?? addMonth(at),
        trialEnd,
        missingPaymentMethod: input.missingPaymentMethod ?? undefined,
        paymentMethod:
          typeof paymentMethod === 'string' ? paymentMethod : (paymentMethod?.id ?? null),
        automaticTax: input.automaticTax,
        status: paid ? 'active' : 'incomplete',
      }),
    );
    const discount =
      input.discount === null
        ? null
        : buildDiscount({
            coupon: input.discount.coupon,
            promotionCode: input.discount.promotionCode,
            customer: customer.id,
            subscription: built.id,
            checkoutSession: null,
            start: at,
          });
    const invoice = buildInvoice({
      subscription: built,
      customer: taken.customer,
      reason: 'subscription_create',
      paid,
      at,
      number: taken.number,
      adjustments: {
        discount:
          discount === null
            ? null
            : { id: discount.id, percentOff: await percentOff(docs, input.discount!.coupon) },
        taxPercent: input.automaticTax ? SIMULATED_TAX.percent : null,
      },
      ...(trialEnd !== null && { lines: trialLines(built, price, { start: at, end: trialEnd }) }),
    });
    const subscription: Stripe.Subscription = {
      ...built,
      discounts: discount === null ? [] : [discount.id],
      latest_invoice: invoice.id,
    };
    if (discount !== null) {
      await docs.save('discount', discount);
      await redeem(docs, discount);
    }
    await docs.save('subscription', subscription);
    const { draft, open } = earlierStages(invoice);
    await docs.save('invoice', paid ? invoice : open);
    await emit('customer.subscription.created', subscription);
    await emit('invoice.created', draft);
    await emit('invoice.finalized', open);
    if (paid) await emit('invoice.paid', invoice);
    if (trialEnd !== null && trialEnd - at <= TRIAL_NOTICE_SECONDS)
      await emit('customer.subscription.trial_will_end', subscription);
    return { subscription, invoice: paid ? invoice : open };
  });
}
