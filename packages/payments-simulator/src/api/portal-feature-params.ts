// The subscription features of a billing portal configuration, as its create and update take them:
// subscription_cancel, subscription_pause and subscription_update with its products (read by
// portal-configuration-params.ts, merged and checked by objects/portal-configurations.ts).
import type { FormObject } from '../form.ts';
import { allowOnly, array, text, whole } from '../params.ts';
import {
  at,
  choice,
  enabled,
  hashes,
  missing,
  nested,
  values,
  type Place,
} from './nested-params.ts';

const PRORATIONS = ['always_invoice', 'create_prorations', 'none'] as const;
const REASONS = [
  'customer_service',
  'low_quality',
  'missing_features',
  'other',
  'switched_service',
  'too_complex',
  'too_expensive',
  'unused',
] as const;

function cancellationReason(reason: FormObject, place: Place) {
  allowOnly(reason, ['enabled', 'feedback_options', 'options'], place.param);
  if (place.creating && reason.options === undefined) throw missing(place, 'options');
  return {
    enabled: enabled(reason, place, true),
    options: values(reason, 'options', REASONS, place),
    feedback_options:
      reason.feedback_options === ''
        ? null
        : array(reason, 'feedback_options', at(place, 'feedback_options').param)?.map(String),
  };
}

export function subscriptionCancel(value: FormObject, place: Place) {
  allowOnly(value, ['cancellation_reason', 'enabled', 'mode', 'proration_behavior'], place.param);
  return {
    enabled: enabled(value, place),
    mode: choice(value, 'mode', ['at_period_end', 'immediately'] as const, place),
    proration_behavior: choice(value, 'proration_behavior', PRORATIONS, place),
    cancellation_reason: nested(value, 'cancellation_reason', place, cancellationReason),
  };
}

function pauseDuration(duration: FormObject, place: Place) {
  allowOnly(duration, ['interval_options', 'type'], place.param);
  const type = choice(duration, 'type', ['indefinite', 'interval_options'] as const, place, true)!;
  const options = hashes(duration, 'interval_options', place, (option, here) => {
    allowOnly(option, ['interval', 'interval_count'], here.param);
    const intervals = ['day', 'month', 'week', 'year'] as const;
    const count = at(here, 'interval_count').param;
    return {
      interval: choice(option, 'interval', intervals, here, true)!,
      interval_count: whole(option, 'interval_count', { min: 1, max: 1095 }, count) ?? 1,
    };
  });
  return { type, interval_options: options };
}

export function subscriptionPause(value: FormObject, place: Place) {
  allowOnly(value, ['duration', 'enabled'], place.param);
  return {
    enabled: enabled(value, place, false),
    duration: nested(value, 'duration', place, pauseDuration),
  };
}

function adjustableQuantity(adjustable: FormObject, place: Place) {
  allowOnly(adjustable, ['enabled', 'maximum', 'minimum'], place.param);
  const bound = (name: string, min: number) =>
    whole(adjustable, name, { min, max: 99 }, at(place, name).param);
  return {
    enabled: enabled(adjustable, place, true)!,
    maximum: bound('maximum', 1) ?? null,
    minimum: bound('minimum', 0) ?? 1,
  };
}

function portalProduct(product: FormObject, place: Place) {
  allowOnly(product, ['adjustable_quantity', 'prices', 'product'], place.param);
  const id = text(product, 'product', { required: true, param: at(place, 'product').param })!;
  const prices = array(product, 'prices', at(place, 'prices').param);
  if (prices === undefined || prices.length === 0) throw missing(place, 'prices');
  return {
    adjustable_quantity: nested(product, 'adjustable_quantity', place, adjustableQuantity) ?? {
      enabled: false,
      maximum: null,
      minimum: 1,
    },
    prices: prices.map(String),
    product: id,
  };
}

function scheduleAtPeriodEnd(schedule: FormObject, place: Place) {
  allowOnly(schedule, ['conditions'], place.param);
  const types = ['decreasing_item_amount', 'shortening_interval'] as const;
  const conditions = hashes(schedule, 'conditions', place, (condition, here) => {
    allowOnly(condition, ['type'], here.param);
    return { type: choice(condition, 'type', types, here, true)! };
  });
  return { conditions };
}

const UPDATE_PARAMS = [
  'billing_cycle_anchor',
  'default_allowed_updates',
  'enabled',
  'products',
  'proration_behavior',
  'schedule_at_period_end',
  'trial_update_behavior',
];

export function subscriptionUpdate(value: FormObject, place: Place) {
  allowOnly(value, UPDATE_PARAMS, place.param);
  const on = enabled(value, place);
  // Products and the updates allowed may be left out only when updates are off (2024-09-30.acacia).
  for (const name of ['products', 'default_allowed_updates'])
    if (place.creating && on === true && value[name] === undefined) throw missing(place, name);
  return {
    enabled: on,
    default_allowed_updates: values(
      value,
      'default_allowed_updates',
      ['price', 'promotion_code', 'quantity'] as const,
      place,
    ),
    products: hashes(value, 'products', place, portalProduct),
    proration_behavior: choice(value, 'proration_behavior', PRORATIONS, place),
    schedule_at_period_end: nested(value, 'schedule_at_period_end', place, scheduleAtPeriodEnd),
    billing_cycle_anchor: choice(
      value,
      'billing_cycle_anchor',
      ['now', 'unchanged'] as const,
      place,
    ),
    trial_update_behavior: choice(
      value,
      'trial_update_behavior',
      ['continue_trial', 'end_trial'] as const,
      place,
    ),
  };
}
