// /v1/subscriptions: create (subscription-create.ts), retrieve, list (by customer and status;
// canceled ones only when asked), update (cancel_at, the flexible billing mode's way, or the
// deprecated cancel_at_period_end; trial_end=now; metadata, description, cancellation_details;
// emits customer.subscription.updated when something changed), DELETE, which cancels now
// (customer.subscription.deleted), and pause / resume (subscription-pause.ts).
import type { FastifyPluginAsync } from 'fastify';
import type Stripe from 'stripe';
import type { SimContext } from '../context.ts';
import { invalidParam } from '../errors.ts';
import { Expander } from '../expand.ts';
import { itemOf } from '../objects/subscriptions.ts';
import {
  allowOnly,
  expansions,
  flag,
  hash,
  mergeMetadata,
  metadata,
  oneOf,
  text,
} from '../params.ts';
import {
  cancelNow,
  changeSubscription,
  withCancelAt,
  withCancelAtPeriodEnd,
} from '../subscription-changes.ts';
import { pause, resume } from '../subscription-pause.ts';
import { endTrial } from '../trial-end.ts';
import { listOf, pageOfParams, PAGE_PARAMS, paramsOf, triggerOf } from './request.ts';
import { cancelAt, subscriptionCreateRoute } from './subscription-create.ts';

type Subscription = Stripe.Subscription;

const STATUSES = [
  'active',
  'past_due',
  'unpaid',
  'canceled',
  'incomplete',
  'incomplete_expired',
  'trialing',
  'paused',
];
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
  'metadata',
  'proration_behavior',
  'trial_end',
];
function statusFilter(value: string | undefined): string[] | undefined {
  if (value === 'all') return undefined;
  if (value === undefined)
    return STATUSES.filter((s) => s !== 'canceled' && s !== 'incomplete_expired');
  if (value === 'ended') return ['canceled', 'incomplete_expired'];
  if (!STATUSES.includes(value))
    throw invalidParam(
      `Invalid status: must be one of ${[...STATUSES, 'ended', 'all'].join(', ')}`,
      'status',
    );
  return [value];
}

export function subscriptionRoutes(ctx: SimContext): FastifyPluginAsync {
  return async (app) => {
    const expander = new Expander(ctx.docs, () => ctx.baseUrl);
    await app.register(subscriptionCreateRoute(ctx, expander));

    app.get<{ Params: { id: string } }>('/subscriptions/:id', async (request) => {
      const params = paramsOf(request);
      allowOnly(params, ['expand']);
      const { data } = await ctx.docs.require<Subscription>('subscription', request.params.id);
      return expander.expand(data, expansions(params));
    });

    app.get('/subscriptions', async (request) => {
      const params = paramsOf(request);
      allowOnly(params, [
        ...PAGE_PARAMS,
        'automatic_tax',
        'collection_method',
        'created',
        'current_period_end',
        'current_period_start',
        'customer',
        'customer_account',
        'plan',
        'price',
        'status',
        'test_clock',
      ]);
      const price = text(params, 'price') ?? text(params, 'plan');
      const filter = {
        customer: text(params, 'customer'),
        status: statusFilter(text(params, 'status')),
      };
      const page = await ctx.docs.list<Subscription>('subscription', filter, pageOfParams(params));
      const data = page.data
        .map((row) => row.data)
        .filter((s) => price === undefined || s.items.data.some((item) => item.price.id === price));
      return expander.expand(listOf('/v1/subscriptions', data, page.hasMore), expansions(params));
    });

    app.post<{ Params: { id: string } }>('/subscriptions/:id', async (request) => {
      const params = paramsOf(request);
      allowOnly(params, UPDATE_PARAMS);
      const other = Object.keys(params).find((name) => !SIMULATED_UPDATES.includes(name));
      if (other !== undefined)
        throw invalidParam(
          `The payments simulator does not support updating ${other}; it simulates cancel_at, cancel_at_period_end, cancellation_details, description, metadata and trial_end=now.`,
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
      const details = hash(params, 'cancellation_details');
      if (details !== undefined)
        allowOnly(details, ['comment', 'feedback', 'feedback_option'], 'cancellation_details');
      const { value } = await changeSubscription(
        ctx,
        request.params.id,
        triggerOf(request),
        (before) => {
          let after: Subscription = { ...before, metadata: mergeMetadata(before.metadata, meta) };
          if (description !== undefined || params.description === '')
            after.description = description ?? null;
          if (details !== undefined) {
            const comment =
              text(details, 'comment', { max: 5000, param: 'cancellation_details[comment]' }) ??
              null;
            const feedback = (text(details, 'feedback', {
              param: 'cancellation_details[feedback]',
            }) ?? null) as Stripe.Subscription.CancellationDetails.Feedback | null;
            after.cancellation_details = {
              ...(before.cancellation_details ?? { feedback_option: null, reason: null }),
              comment,
              feedback,
            } as Subscription['cancellation_details'];
          }
          const end = cancelAt(params, () => itemOf(before).current_period_end);
          if (end !== undefined) after = withCancelAt(after, end.at);
          if (cancelAtEnd !== undefined) after = withCancelAtPeriodEnd(after, cancelAtEnd);
          return after;
        },
      );
      if (trialEnd === 'now')
        return expander.expand(
          (await endTrial(ctx, request.params.id, triggerOf(request))).value.subscription,
          expansions(params),
        );
      return expander.expand(value.subscription, expansions(params));
    });

    app.delete<{ Params: { id: string } }>('/subscriptions/:id', async (request) => {
      const params = paramsOf(request);
      allowOnly(params, ['cancellation_details', 'expand', 'invoice_now', 'prorate']);
      flag(params, 'invoice_now');
      flag(params, 'prorate');
      const details = hash(params, 'cancellation_details');
      if (details !== undefined)
        allowOnly(details, ['comment', 'feedback', 'feedback_option'], 'cancellation_details');
      const { value } = await cancelNow(ctx, request.params.id, triggerOf(request), {
        comment:
          details === undefined
            ? undefined
            : text(details, 'comment', { param: 'cancellation_details[comment]' }),
        feedback:
          details === undefined
            ? undefined
            : text(details, 'feedback', { param: 'cancellation_details[feedback]' }),
      });
      return expander.expand(value.subscription, expansions(params));
    });

    app.post<{ Params: { id: string } }>('/subscriptions/:id/pause', async (request) => {
      const params = paramsOf(request);
      allowOnly(params, ['bill_for', 'expand', 'invoicing_behavior', 'type']);
      oneOf(params, 'type', ['subscription'] as const);
      oneOf(params, 'invoicing_behavior', ['invoice', 'pending_invoice_item'] as const);
      const { value } = await pause(ctx, request.params.id, triggerOf(request));
      return expander.expand(value.subscription, expansions(params));
    });

    app.post<{ Params: { id: string } }>('/subscriptions/:id/resume', async (request) => {
      const params = paramsOf(request);
      allowOnly(params, [
        'billing_cycle_anchor',
        'expand',
        'payment_behavior',
        'proration_behavior',
        'proration_date',
      ]);
      const anchor = hash(params, 'billing_cycle_anchor');
      if (anchor !== undefined) allowOnly(anchor, ['type'], 'billing_cycle_anchor');
      const type =
        anchor === undefined
          ? undefined
          : oneOf(anchor, 'type', ['now', 'unchanged'] as const, 'billing_cycle_anchor[type]');
      oneOf(params, 'payment_behavior', [
        'resume_on_payment_attempt',
        'resume_on_payment_success',
      ] as const);
      oneOf(params, 'proration_behavior', ['always_invoice', 'create_prorations', 'none'] as const);
      const { value } = await resume(ctx, request.params.id, triggerOf(request), type ?? 'now');
      return expander.expand(value.subscription, expansions(params));
    });
  };
}
