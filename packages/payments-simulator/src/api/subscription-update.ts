// POST /v1/subscriptions/:id: the fields the simulator models (cancel_at, the flexible billing
// mode's way, or the deprecated cancel_at_period_end; trial_end=now; metadata, description,
// cancellation_details; the item's price and quantity, prorated as `proration_behavior` says),
// emitting customer.subscription.updated when something changed. Any other parameter Stripe takes
// is refused with a 400 that names it.
import type { FastifyPluginAsync } from 'fastify';
import type Stripe from 'stripe';
import type { SimContext } from '../context.ts';
import { invalidParam } from '../errors.ts';
import type { Expander } from '../expand.ts';
import type { FormObject } from '../form.ts';
import type { ItemChange } from '../item-change.ts';
import { itemOf } from '../objects/subscriptions.ts';
import { allowOnly, expansions, flag, hash, mergeMetadata, metadata, text } from '../params.ts';
import {
  changeSubscription,
  refuseEnded,
  withCancelAt,
  withCancelAtPeriodEnd,
} from '../subscription-changes.ts';
import { endTrial } from '../trial-end.ts';
import { itemChange } from './item-params.ts';
import { paramsOf, triggerOf } from './request.ts';
import { cancelAt } from './subscription-create.ts';

type Subscription = Stripe.Subscription;

const UPDATE_PARAMS = [
  'add_invoice_items',
  'application_fee_percent',
  'automatic_tax',
  'billing_cycle_anchor',
  'billing_schedules',
  'billing_thresholds',
  'cancel_at',
  'cancel_at_period_end',
  'cancellation_details',
  'collection_method',
  'days_until_due',
  'default_payment_method',
  'default_source',
  'default_tax_rates',
  'description',
  'discounts',
  'expand',
  'invoice_settings',
  'items',
  'metadata',
  'off_session',
  'on_behalf_of',
  'pause_collection',
  'payment_behavior',
  'payment_settings',
  'pending_invoice_item_interval',
  'proration_behavior',
  'proration_date',
  'transfer_data',
  'trial_end',
  'trial_from_plan',
  'trial_settings',
];
const SIMULATED_UPDATES = [
  'cancel_at',
  'cancel_at_period_end',
  'cancellation_details',
  'description',
  'expand',
  'items',
  'metadata',
  'proration_behavior',
  'trial_end',
];

/** `cancellation_details`, the hash the update and DELETE take; undefined when not given. */
export function cancellationDetails(params: FormObject): FormObject | undefined {
  const details = hash(params, 'cancellation_details');
  if (details !== undefined)
    allowOnly(details, ['comment', 'feedback', 'feedback_option'], 'cancellation_details');
  return details;
}

function withDetails(subscription: Subscription, details: FormObject): Subscription {
  const comment =
    text(details, 'comment', { max: 5000, param: 'cancellation_details[comment]' }) ?? null;
  const feedback = (text(details, 'feedback', { param: 'cancellation_details[feedback]' }) ??
    null) as Stripe.Subscription.CancellationDetails.Feedback | null;
  return {
    ...subscription,
    cancellation_details: {
      ...(subscription.cancellation_details ?? { feedback_option: null, reason: null }),
      comment,
      feedback,
    } as Subscription['cancellation_details'],
  };
}

interface Update {
  /** What it does to the subscription's own fields; it may refuse the subscription as it is. */
  change: (before: Subscription) => Subscription;
  /** What it does to the subscription's item, if anything. */
  item: ItemChange | undefined;
  /** trial_end=now: the trial ends once the change is stored. */
  endsTrial: boolean;
}

/** The update's parameters, checked before the subscription is read. */
function readUpdate(params: FormObject): Update {
  allowOnly(params, UPDATE_PARAMS);
  const other = Object.keys(params).find((name) => !SIMULATED_UPDATES.includes(name));
  if (other !== undefined)
    throw invalidParam(
      `The payments simulator does not support updating ${other}; it simulates cancel_at, cancel_at_period_end, cancellation_details, description, items (price and quantity), metadata, proration_behavior and trial_end=now.`,
      other,
    );
  const cancelAtEnd = flag(params, 'cancel_at_period_end');
  const trialEnd = text(params, 'trial_end');
  if (trialEnd !== undefined && trialEnd !== 'now')
    throw invalidParam(
      'The payments simulator supports trial_end=now only: it ends the trial at once.',
      'trial_end',
    );
  const meta = metadata(params);
  const description = text(params, 'description', { max: 500 });
  const details = cancellationDetails(params);
  const item = itemChange(params);
  const change = (before: Subscription): Subscription => {
    if (item !== undefined) refuseEnded(before, 'items');
    let after: Subscription = { ...before, metadata: mergeMetadata(before.metadata, meta) };
    if (description !== undefined || params.description === '')
      after.description = description ?? null;
    if (details !== undefined) after = withDetails(after, details);
    const end = cancelAt(params, () => itemOf(before).current_period_end);
    if (end !== undefined) after = withCancelAt(after, end.at);
    if (cancelAtEnd !== undefined) after = withCancelAtPeriodEnd(after, cancelAtEnd);
    return after;
  };
  return { change, item, endsTrial: trialEnd === 'now' };
}

export function subscriptionUpdateRoute(ctx: SimContext, expander: Expander): FastifyPluginAsync {
  return async (app) => {
    app.post<{ Params: { id: string } }>('/subscriptions/:id', async (request) => {
      const params = paramsOf(request);
      const { change, item, endsTrial } = readUpdate(params);
      const { id } = request.params;
      const changed = await changeSubscription(ctx, id, triggerOf(request), change, item);
      const { subscription } = endsTrial
        ? (await endTrial(ctx, id, triggerOf(request))).value
        : changed.value;
      return expander.expand(subscription, expansions(params));
    });
  };
}
