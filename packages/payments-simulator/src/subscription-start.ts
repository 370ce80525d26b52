// What a new subscription starts with, whether a checkout or the API makes it: the discount a
// redeemed code or coupon becomes, and its first invoice (a trial's, at nothing, when it has one),
// stored with the subscription and the redemption counted. A trial ending within three days is
// announced at once, as Stripe does.
import type Stripe from 'stripe';
import type { Unit } from './context.ts';
import type { SessionDiscount } from './objects/checkout.ts';
import { buildInvoice, trialLines } from './objects/invoices.ts';
import { appliedDiscount, buildDiscount, redeem, SIMULATED_TAX } from './objects/offers.ts';
import { itemOf } from './objects/subscriptions.ts';
import type { Documents } from './store.ts';

const DAY = 86_400;
/** Stripe sends trial_will_end three days before a trial ends, or at once when fewer remain. */
const TRIAL_NOTICE_SECONDS = 3 * DAY;

/** When a trial of `days`, or one ending at `end`, that starts `at` ends; null without a trial. */
export function trialEndOf(trial: { days: number | null; end: number | null }, at: number) {
  return trial.end ?? (trial.days === null ? null : at + trial.days * DAY);
}

export interface Start {
  /** The new subscription (buildSubscription), not stored yet. */
  subscription: Stripe.Subscription;
  /** Its customer, moved past `number` (takeInvoiceNumber). */
  customer: Stripe.Customer;
  number: string;
  /** Unix seconds: when it starts. */
  at: number;
  paid: boolean;
  /** The code or coupon redeemed, and the checkout session that redeemed it, if one did. */
  discount: (SessionDiscount & { checkoutSession: string | null }) | null;
}

/** Stores the subscription, its discount and its first invoice. */
export async function startSubscription(
  docs: Documents,
  { subscription: built, customer, number, at, paid, discount: redeemed }: Start,
): Promise<{ subscription: Stripe.Subscription; invoice: Stripe.Invoice }> {
  const discount =
    redeemed === null
      ? null
      : buildDiscount({ ...redeemed, customer: customer.id, subscription: built.id, start: at });
  const trialEnd = built.trial_end;
  const invoice = buildInvoice({
    subscription: built,
    customer,
    reason: 'subscription_create',
    paid,
    at,
    number,
    adjustments: {
      discount: discount && (await appliedDiscount(docs, redeemed!, discount.id)),
      taxPercent: built.automatic_tax.enabled ? SIMULATED_TAX.percent : null,
    },
    ...(trialEnd !== null && {
      lines: trialLines(built, itemOf(built).price, { start: at, end: trialEnd }),
    }),
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
  await docs.save('invoice', invoice);
  return { subscription, invoice };
}

/** customer.subscription.trial_will_end now, for a trial ending within three days of `at`. */
export async function announceTrialEndingSoon(
  unit: Unit,
  subscription: Stripe.Subscription,
  at: number,
): Promise<void> {
  const end = subscription.trial_end;
  if (end !== null && end - at <= TRIAL_NOTICE_SECONDS)
    await unit.emit('customer.subscription.trial_will_end', subscription);
}
