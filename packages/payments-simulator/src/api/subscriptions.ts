// /v1/subscriptions: create (subscription-create.ts), retrieve, list (by customer, price and
// status; canceled ones only when asked), update (subscription-update.ts), DELETE, which cancels
// now (customer.subscription.deleted), and pause / resume (subscription-pause.ts).
import type { FastifyPluginAsync } from 'fastify';
import type Stripe from 'stripe';
import type { SimContext } from '../context.ts';
import { invalidParam } from '../errors.ts';
import { Expander } from '../expand.ts';
import type { FormObject } from '../form.ts';
import { allowOnly, expansions, flag, hash, oneOf, text } from '../params.ts';
import type { Filter } from '../store.ts';
import { cancelNow } from '../subscription-changes.ts';
import { pause, resume, type BillingCycleAnchor } from '../subscription-pause.ts';
import { listOf, pageOfParams, PAGE_PARAMS, paramsOf, triggerOf } from './request.ts';
import { subscriptionCreateRoute } from './subscription-create.ts';
import { cancellationDetails, subscriptionUpdateRoute } from './subscription-update.ts';

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
const LIST_PARAMS = [
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

/** DELETE's `cancellation_details`: what the cancellation records besides its reason. */
function deleteParams(params: FormObject): { comment?: string; feedback?: string } {
  allowOnly(params, ['cancellation_details', 'expand', 'invoice_now', 'prorate']);
  flag(params, 'invoice_now');
  flag(params, 'prorate');
  const details = cancellationDetails(params);
  if (details === undefined) return { comment: undefined, feedback: undefined };
  return {
    comment: text(details, 'comment', { param: 'cancellation_details[comment]' }),
    feedback: text(details, 'feedback', { param: 'cancellation_details[feedback]' }),
  };
}

/** Resume's `billing_cycle_anchor[type]`, `now` by default; the other parameters are checked only. */
function resumeAnchor(params: FormObject): BillingCycleAnchor {
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
  return type ?? 'now';
}

export function subscriptionRoutes(ctx: SimContext): FastifyPluginAsync {
  return async (app) => {
    const expander = new Expander(ctx.docs, () => ctx.baseUrl);
    await app.register(subscriptionCreateRoute(ctx, expander));
    await app.register(subscriptionUpdateRoute(ctx, expander));

    app.get<{ Params: { id: string } }>('/subscriptions/:id', async (request) => {
      const params = paramsOf(request);
      allowOnly(params, ['expand']);
      const { data } = await ctx.docs.require<Subscription>('subscription', request.params.id);
      return expander.expand(data, expansions(params));
    });

    app.get('/subscriptions', async (request) => {
      const params = paramsOf(request);
      allowOnly(params, LIST_PARAMS);
      const price = text(params, 'price') ?? text(params, 'plan');
      const filter: Filter = {
        customer: text(params, 'customer'),
        status: statusFilter(text(params, 'status')),
      };
      const page = await ctx.docs.list<Subscription>('subscription', filter, pageOfParams(params));
      const data = page.data
        .map((row) => row.data)
        .filter((s) => price === undefined || s.items.data.some((item) => item.price.id === price));
      return expander.expand(listOf('/v1/subscriptions', data, page.hasMore), expansions(params));
    });

    app.delete<{ Params: { id: string } }>('/subscriptions/:id', async (request) => {
      const params = paramsOf(request);
      const details = deleteParams(params);
      const { value } = await cancelNow(ctx, request.params.id, triggerOf(request), details);
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
      const anchor = resumeAnchor(params);
      const { value } = await resume(ctx, request.params.id, triggerOf(request), anchor);
      return expander.expand(value.subscription, expansions(params));
    });
  };
}
