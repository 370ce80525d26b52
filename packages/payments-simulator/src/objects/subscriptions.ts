// The subscription object of the current API: the billing period lives on each item
// (items.data[].current_period_start/_end), not on the subscription itself.
import type Stripe from 'stripe';
import { newId } from '../ids.ts';
import { nowSeconds, periodEnd } from '../time.ts';
import { planOf } from './catalog.ts';

export interface NewSubscription {
  customer: string;
  price: Stripe.Price;
  quantity: number;
  metadata: Stripe.Metadata;
  description: string | null;
  start: number;
  /** The first period's end; with a trial, the trial's end. */
  periodEnd: number;
  /** When its trial ends; null or absent: no trial. */
  trialEnd?: number | null;
  /** What the trial's end does without a payment method (Stripe's default: create_invoice). */
  missingPaymentMethod?: Stripe.Subscription.TrialSettings.EndBehavior.MissingPaymentMethod;
  /** The payment method it charges; absent: a card collected at checkout; null: none. */
  paymentMethod?: string | null;
  /** The id of its discount (offers.ts), if a code or coupon was redeemed. */
  discount?: string | null;
  automaticTax?: boolean;
  /** Without a trial: active, or incomplete while its first invoice is unpaid. */
  status?: 'active' | 'incomplete';
}

/**
 * When the subscription is scheduled to end: `cancel_at` (the flexible billing mode's way, and
 * also set with the classic cancel_at_period_end), else the period's end with
 * cancel_at_period_end; null when it is not.
 */
export function scheduledEnd(subscription: Stripe.Subscription): number | null {
  if (subscription.cancel_at !== null) return subscription.cancel_at;
  return subscription.cancel_at_period_end ? itemOf(subscription).current_period_end : null;
}

export function buildSubscription(input: NewSubscription): Stripe.Subscription {
  const id = newId('sub_');
  const trialEnd = input.trialEnd ?? null;
  const item: Stripe.SubscriptionItem = {
    id: newId('si_', 14),
    object: 'subscription_item',
    billing_thresholds: null,
    created: input.start,
    current_period_end: input.periodEnd,
    current_period_start: input.start,
    current_trial: null,
    discounts: [],
    metadata: {},
    plan: planOf(input.price),
    price: input.price,
    quantity: input.quantity,
    subscription: id,
    tax_rates: [],
  };
  return {
    id,
    object: 'subscription',
    application: null,
    application_fee_percent: null,
    automatic_tax: input.automaticTax
      ? { disabled_reason: null, enabled: true, liability: { type: 'self' } }
      : { disabled_reason: null, enabled: false, liability: null },
    billing_cycle_anchor: trialEnd ?? input.start,
    billing_cycle_anchor_config: null,
    billing_mode: {
      flexible: { proration_discounts: 'included' },
      type: 'flexible',
      updated_at: input.start,
    },
    billing_schedules: [],
    billing_thresholds: null,
    cancel_at: null,
    cancel_at_period_end: false,
    canceled_at: null,
    cancellation_details: { comment: null, feedback: null, feedback_option: null, reason: null },
    collection_method: 'charge_automatically',
    created: input.start,
    currency: input.price.currency,
    customer: input.customer,
    customer_account: null,
    days_until_due: null,
    default_payment_method: input.paymentMethod === undefined ? newId('pm_') : input.paymentMethod,
    default_source: null,
    default_tax_rates: [],
    description: input.description,
    discounts: input.discount ? [input.discount] : [],
    ended_at: null,
    invoice_settings: {
      account_tax_ids: null,
      custom_fields: null,
      description: null,
      footer: null,
      issuer: { type: 'self' },
    },
    items: {
      object: 'list',
      data: [item],
      has_more: false,
      url: `/v1/subscription_items?subscription=${id}`,
    },
    latest_invoice: null,
    livemode: false,
    managed_payments: null,
    metadata: input.metadata,
    next_pending_invoice_item_invoice: null,
    on_behalf_of: null,
    pause_collection: null,
    payment_settings: {
      payment_method_options: null,
      payment_method_types: null,
      save_default_payment_method: 'off',
    },
    pending_invoice_item_interval: null,
    pending_setup_intent: null,
    pending_update: null,
    schedule: null,
    start_date: input.start,
    status: trialEnd === null ? (input.status ?? 'active') : 'trialing',
    test_clock: null,
    transfer_data: null,
    trial_end: trialEnd,
    trial_settings: {
      end_behavior: {
        billing_cycle_anchor: null,
        missing_payment_method: input.missingPaymentMethod ?? 'create_invoice',
      },
    },
    trial_start: trialEnd === null ? null : input.start,
  };
}

/** The end of a period of `price` that starts at `start`, aligned to the billing cycle `anchor`. */
export const periodEndOf = (price: Stripe.Price, start: number, anchor: number = start): number =>
  periodEnd(start, price.recurring ?? { interval: 'month' }, anchor);

/** The subscription's only item: where its price and current period are. */
export function itemOf(subscription: Stripe.Subscription): Stripe.SubscriptionItem {
  const item = subscription.items.data[0];
  if (item === undefined) throw new Error(`subscription ${subscription.id} has no item`);
  return item;
}

/** The id of the schedule managing the subscription, expanded or not; null without one. */
export const scheduleIdOf = (subscription: Stripe.Subscription): string | null =>
  typeof subscription.schedule === 'string'
    ? subscription.schedule
    : (subscription.schedule?.id ?? null);

/** The id of the subscription's customer, expanded or not. */
export const customerIdOf = (subscription: Stripe.Subscription): string =>
  typeof subscription.customer === 'string' ? subscription.customer : subscription.customer.id;

/** A copy with the item's period moved to [start, end). */
export function withPeriod(
  subscription: Stripe.Subscription,
  start: number,
  end: number,
): Stripe.Subscription {
  const item = { ...itemOf(subscription), current_period_start: start, current_period_end: end };
  return { ...subscription, items: { ...subscription.items, data: [item] } };
}

type PauseReason = Stripe.Subscription.StatusDetails.Paused.Subscription.Type;

/** A copy paused now for `reason`, saying so in `status_details` (since the endive API). */
export function paused(
  subscription: Stripe.Subscription,
  reason: PauseReason,
): Stripe.Subscription {
  return {
    ...subscription,
    status: 'paused',
    status_details: {
      paused: {
        subscription: { type: reason },
        transitioned_at: nowSeconds(),
        type: 'subscription',
      },
    },
  };
}

/** A copy active again, without its pause's details. */
export function active(subscription: Stripe.Subscription): Stripe.Subscription {
  const { status_details: _paused, ...rest } = subscription;
  return { ...rest, status: 'active' };
}
