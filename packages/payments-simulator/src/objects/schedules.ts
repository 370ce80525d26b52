// Subscription schedules (`sub_sched_...`), the object of the pinned API version: phases of one
// item each (the simulator's subscriptions have one), every field the schema requires, none that
// only a request has (`duration`; `iterations`, which 2025-09-30.clover removed). Built from a
// subscription as it is (its billing mode, payment method and tax), active from its first phase.
import type Stripe from 'stripe';
import { newId } from '../ids.ts';

export type Schedule = Stripe.SubscriptionSchedule;
export type Phase = Stripe.SubscriptionSchedule.Phase;
export type ProrationBehavior = Stripe.SubscriptionSchedule.Phase.ProrationBehavior;

export interface NewPhase {
  start: number;
  end: number;
  price: Stripe.Price;
  quantity: number;
  proration?: ProrationBehavior;
  metadata?: Stripe.Metadata;
}

export function buildPhase({
  start,
  end,
  price,
  quantity,
  proration = 'create_prorations',
  metadata = {},
}: NewPhase): Phase {
  return {
    add_invoice_items: [],
    application_fee_percent: null,
    billing_cycle_anchor: null,
    billing_thresholds: null,
    collection_method: null,
    currency: price.currency,
    default_payment_method: null,
    default_tax_rates: [],
    description: null,
    discounts: [],
    end_date: end,
    invoice_settings: null,
    items: [
      {
        billing_thresholds: null,
        discounts: [],
        metadata: {},
        plan: price.id,
        price: price.id,
        quantity,
        tax_rates: [],
      },
    ],
    metadata,
    on_behalf_of: null,
    proration_behavior: proration,
    start_date: start,
    transfer_data: null,
    trial_end: null,
  };
}

/** The price id and quantity a phase sets the subscription's item to. */
export function phaseItem(phase: Phase): { price: string; quantity: number } {
  const [item] = phase.items;
  if (item === undefined) throw new Error('a schedule phase without an item');
  return { price: String(item.price), quantity: item.quantity ?? 1 };
}

export const currentPhaseOf = (phase: Phase): Schedule['current_phase'] => ({
  end_date: phase.end_date,
  start_date: phase.start_date,
});

export function buildSchedule(
  subscription: Stripe.Subscription,
  phases: Phase[],
  at: number,
): Schedule {
  const tax = subscription.automatic_tax;
  return {
    id: newId('sub_sched_'),
    object: 'subscription_schedule',
    application: null,
    billing_mode: subscription.billing_mode,
    canceled_at: null,
    completed_at: null,
    created: at,
    current_phase: currentPhaseOf(phases[0]!),
    customer: String(subscription.customer),
    customer_account: null,
    default_settings: {
      application_fee_percent: null,
      automatic_tax: {
        disabled_reason: null,
        enabled: tax.enabled,
        liability: tax.enabled ? { type: 'self' } : null,
      },
      billing_cycle_anchor: 'automatic',
      billing_thresholds: null,
      collection_method: 'charge_automatically',
      default_payment_method: subscription.default_payment_method,
      description: null,
      invoice_settings: {
        account_tax_ids: null,
        custom_fields: null,
        days_until_due: null,
        description: null,
        footer: null,
        issuer: { type: 'self' },
      },
      on_behalf_of: null,
      transfer_data: null,
    },
    end_behavior: 'release',
    livemode: false,
    metadata: {},
    pause_schedules: [],
    phases,
    released_at: null,
    released_subscription: null,
    status: 'active',
    subscription: subscription.id,
    test_clock: null,
  };
}

/** Released at `at`: the subscription stays as it is, no longer managed by the schedule. */
export const released = (schedule: Schedule, at: number): Schedule => ({
  ...schedule,
  current_phase: null,
  released_at: at,
  released_subscription: String(schedule.subscription),
  status: 'released',
  subscription: null,
});

/** Ended at `at` with its subscription: canceled (by a request) or completed (its last phase over). */
export const ended = (
  schedule: Schedule,
  status: 'canceled' | 'completed',
  at: number,
): Schedule => ({
  ...schedule,
  current_phase: null,
  status,
  ...(status === 'canceled' ? { canceled_at: at } : { completed_at: at }),
});

/** The cancellation an `end_behavior=cancel` schedule puts on its subscription: its last phase's end. */
export const cancelAtOf = (schedule: Schedule): number | null =>
  schedule.end_behavior === 'cancel' ? schedule.phases.at(-1)!.end_date : null;
