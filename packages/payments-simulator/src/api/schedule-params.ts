// The parameters of /v1/subscription_schedules, read and refused as Stripe refuses them for the
// pinned version: `from_subscription` with nothing else but metadata; `phases[i][iterations]`, which
// 2025-09-30.clover removed, is an unknown parameter (`duration` replaced it); a phase's
// `end_date` and `duration` together. What the simulator does not model (a schedule that starts a
// subscription of its own, default settings, pauses, a phase's discounts, invoice items, trials
// and other settings, more than one item) is refused with a 400 that says so.
import { invalidParam } from '../errors.ts';
import type { FormObject } from '../form.ts';
import { allowOnly, metadata, oneOf, text, whole } from '../params.ts';
import type { ProrationBehavior } from '../item-change.ts';
import type { Recurrence } from '../time.ts';
import { at, choice, hashes, missing, nested, type Place } from './nested-params.ts';

const PRORATIONS = ['always_invoice', 'create_prorations', 'none'] as const;

/** A time parameter: a Unix time, or `now`. */
export type When = number | 'now';

export interface PhaseRequest {
  start?: When;
  end?: When;
  duration?: Recurrence;
  price: string;
  quantity: number;
  proration?: ProrationBehavior;
  metadata?: Record<string, string>;
}

export interface ScheduleUpdate {
  phases?: PhaseRequest[];
  endBehavior?: 'release' | 'cancel';
  proration?: ProrationBehavior;
  metadata?: Record<string, string>;
}

const PHASE_PARAMS = [
  'add_invoice_items',
  'application_fee_percent',
  'automatic_tax',
  'billing_cycle_anchor',
  'billing_thresholds',
  'collection_method',
  'currency',
  'default_payment_method',
  'default_tax_rates',
  'description',
  'discounts',
  'duration',
  'end_date',
  'invoice_settings',
  'items',
  'metadata',
  'on_behalf_of',
  'proration_behavior',
  'start_date',
  'transfer_data',
  'trial',
  'trial_end',
];
const SIMULATED_PHASE_PARAMS = [
  'duration',
  'end_date',
  'items',
  'metadata',
  'proration_behavior',
  'start_date',
];
const ITEM_PARAMS = [
  'billing_thresholds',
  'discounts',
  'metadata',
  'plan',
  'price',
  'price_data',
  'quantity',
  'tax_rates',
];

/** Refuses, naming it, the first of `params` the simulator takes but does not model. */
function refuseUnmodelled(params: FormObject, modelled: string[], place: Place, what: string) {
  const other = Object.keys(params).find((name) => !modelled.includes(name));
  if (other !== undefined) {
    const param = at(place, other).param;
    throw invalidParam(`The payments simulator does not support ${param}; ${what}.`, param);
  }
}

function when(params: FormObject, name: string, place: Place): When | undefined {
  const value = text(params, name, { param: at(place, name).param });
  if (value === undefined || value === 'now') return value;
  return whole(params, name, { min: 0, max: 99_999_999_999 }, at(place, name).param);
}

function phaseItem(item: FormObject, place: Place): { price: string; quantity: number } {
  allowOnly(item, ITEM_PARAMS, place.param);
  refuseUnmodelled(
    item,
    ['plan', 'price', 'quantity'],
    place,
    'an item has a price and a quantity',
  );
  const price = text(item, 'price', { param: at(place, 'price').param }) ?? text(item, 'plan');
  if (price === undefined) throw missing(place, 'price');
  const quantity = whole(item, 'quantity', { min: 0, max: 999_999 }, at(place, 'quantity').param);
  return { price, quantity: quantity ?? 1 };
}

function phase(value: FormObject, place: Place): PhaseRequest {
  allowOnly(value, PHASE_PARAMS, place.param);
  refuseUnmodelled(
    value,
    SIMULATED_PHASE_PARAMS,
    place,
    'a phase has its dates, one item, its proration behavior and metadata',
  );
  const items = hashes(value, 'items', place, phaseItem);
  if (items === undefined || items.length === 0) throw missing(place, 'items');
  if (items.length > 1)
    throw invalidParam(
      'The payments simulator supports one item per phase: a simulated subscription has one item.',
      at(place, 'items').param,
    );
  const duration = nested(value, 'duration', place, (hash, here) => {
    allowOnly(hash, ['interval', 'interval_count'], here.param);
    const interval = choice(
      hash,
      'interval',
      ['day', 'week', 'month', 'year'] as const,
      here,
      true,
    )!;
    return {
      interval,
      interval_count:
        whole(hash, 'interval_count', { min: 1, max: 1095 }, at(here, 'interval_count').param) ?? 1,
    };
  });
  const end = when(value, 'end_date', place);
  if (duration !== undefined && end !== undefined)
    throw invalidParam(
      `You may only specify one of these parameters: ${at(place, 'duration').param}, ${at(place, 'end_date').param}.`,
      at(place, 'end_date').param,
    );
  return {
    start: when(value, 'start_date', place),
    end,
    duration,
    ...items[0]!,
    proration: choice(value, 'proration_behavior', PRORATIONS, place),
    metadata: metadata(value, 'metadata', at(place, 'metadata').param),
  };
}

const CREATE_PARAMS = [
  'billing_mode',
  'customer',
  'customer_account',
  'default_settings',
  'end_behavior',
  'expand',
  'from_subscription',
  'metadata',
  'pause_schedules',
  'phases',
  'start_date',
];

/** POST /v1/subscription_schedules: the subscription to manage, and the schedule's metadata. */
export function readScheduleCreate(params: FormObject): {
  subscription: string;
  metadata: Record<string, string>;
} {
  allowOnly(params, CREATE_PARAMS);
  const subscription = text(params, 'from_subscription');
  if (subscription === undefined)
    throw invalidParam(
      'The payments simulator creates a schedule from_subscription only: create the subscription first (a checkout, or POST /v1/subscriptions), then its schedule.',
      'from_subscription',
    );
  const other = Object.keys(params).find(
    (name) => !['expand', 'from_subscription', 'metadata'].includes(name),
  );
  if (other !== undefined)
    throw invalidParam(`You cannot set \`${other}\` if \`from_subscription\` is set.`, other);
  return { subscription, metadata: metadata(params) ?? {} };
}

/** POST /v1/subscription_schedules/:id: its phases, end_behavior, proration_behavior, metadata. */
export function readScheduleUpdate(params: FormObject): ScheduleUpdate {
  allowOnly(params, [
    'default_settings',
    'end_behavior',
    'expand',
    'metadata',
    'pause_schedules',
    'phases',
    'proration_behavior',
  ]);
  refuseUnmodelled(
    params,
    ['end_behavior', 'expand', 'metadata', 'phases', 'proration_behavior'],
    { param: '', creating: false },
    'it updates phases, end_behavior, proration_behavior and metadata',
  );
  const phases = hashes(params, 'phases', { param: '', creating: false }, phase);
  if (phases !== undefined && phases.length === 0)
    throw missing({ param: 'phases', creating: false });
  return {
    phases,
    endBehavior: oneOf(params, 'end_behavior', ['release', 'cancel'] as const),
    proration: oneOf(params, 'proration_behavior', PRORATIONS),
    metadata: metadata(params),
  };
}
