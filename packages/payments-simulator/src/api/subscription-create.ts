// POST /v1/subscriptions (the simulator's subscription-create.ts makes it): its parameters, checked
// as Stripe checks them, one price, and `cancel_at` (shared with the update).
import type { FastifyPluginAsync } from 'fastify';
import type { SimContext } from '../context.ts';
import { invalidParam } from '../errors.ts';
import type { Expander } from '../expand.ts';
import type { FormObject } from '../form.ts';
import { itemOf } from '../objects/subscriptions.ts';
import {
  allowOnly,
  array,
  expansions,
  flag,
  hash,
  mergeMetadata,
  metadata,
  oneOf,
  text,
  whole,
} from '../params.ts';
import { withCancelAt, withCancelAtPeriodEnd } from '../subscription-changes.ts';
import type { Documents } from '../store.ts';
import { createSubscription, type SubscriptionRequest } from '../subscription-create.ts';
import { nowSeconds } from '../time.ts';
import { discount, missingPaymentMethod, trialDays } from './offer-params.ts';
import { paramsOf, triggerOf } from './request.ts';

const CREATE_PARAMS = [
  'automatic_tax',
  'billing_mode',
  'cancel_at',
  'cancel_at_period_end',
  'collection_method',
  'currency',
  'customer',
  'default_payment_method',
  'description',
  'discounts',
  'expand',
  'invoice_settings',
  'items',
  'metadata',
  'off_session',
  'payment_behavior',
  'payment_settings',
  'proration_behavior',
  'trial_end',
  'trial_period_days',
  'trial_settings',
];
const CANCEL_AT_ENUM = ['max_billed_until', 'max_period_end', 'min_period_end'];

/**
 * `cancel_at`: a future time, one of Stripe's names for the period's end (one item here, so all
 * three are its end), or '' to clear; undefined when not given. Never with cancel_at_period_end.
 */
export function cancelAt(
  params: FormObject,
  periodEnd: () => number,
): { at: number | null } | undefined {
  const raw = params.cancel_at;
  if (raw === undefined) return undefined;
  if (params.cancel_at_period_end !== undefined)
    throw invalidParam(
      'You may only specify one of these parameters: cancel_at, cancel_at_period_end.',
      'cancel_at',
    );
  if (raw === '') return { at: null };
  if (typeof raw === 'string' && CANCEL_AT_ENUM.includes(raw)) return { at: periodEnd() };
  const at = whole(params, 'cancel_at', { min: 0, max: Number.MAX_SAFE_INTEGER });
  if (at! <= nowSeconds()) throw invalidParam('`cancel_at` must be in the future.', 'cancel_at');
  return { at: at! };
}

/** The one item of a new subscription: `items[0][price]`, `items[0][quantity]`. */
function oneItem(params: FormObject): { price: string; quantity: number } {
  const items = array(params, 'items');
  if (items === undefined || items.length === 0)
    throw invalidParam('Missing required param: items.', 'items');
  if (items.length > 1)
    throw invalidParam(
      'The payments simulator does not support items[1]: a simulated subscription has one price.',
      'items[1]',
    );
  const item = hash({ item: items[0]! }, 'item', 'items[0]')!;
  allowOnly(item, ['discounts', 'metadata', 'price', 'quantity', 'tax_rates'], 'items[0]');
  return {
    price: text(item, 'price', { required: true, param: 'items[0][price]' })!,
    quantity: whole(item, 'quantity', { min: 1, max: 999_999 }, 'items[0][quantity]') ?? 1,
  };
}

/** The create's parameters, as createSubscription takes them (price and customer not read yet). */
async function readCreate(docs: Documents, params: FormObject): Promise<SubscriptionRequest> {
  allowOnly(params, CREATE_PARAMS);
  const collection = oneOf(params, 'collection_method', ['charge_automatically', 'send_invoice']);
  if (collection === 'send_invoice')
    throw invalidParam(
      'The payments simulator does not support collection_method=send_invoice: it charges automatically.',
      'collection_method',
    );
  const { price, quantity } = oneItem(params);
  const trialEndRaw = text(params, 'trial_end');
  const trialEnd =
    trialEndRaw === undefined || trialEndRaw === 'now'
      ? null
      : whole(params, 'trial_end', { min: nowSeconds() + 1, max: nowSeconds() + 730 * 86_400 });
  const days = trialDays(params, 'trial_period_days');
  const atPeriodEnd = flag(params, 'cancel_at_period_end') ?? false;
  const behavior = oneOf(params, 'payment_behavior', [
    'allow_incomplete',
    'default_incomplete',
    'error_if_incomplete',
    'pending_if_incomplete',
  ] as const);
  const tax = hash(params, 'automatic_tax');
  if (tax !== undefined) allowOnly(tax, ['enabled', 'liability'], 'automatic_tax');
  return {
    customer: text(params, 'customer', { required: true })!,
    price,
    quantity,
    metadata: mergeMetadata({}, metadata(params)),
    description: text(params, 'description', { max: 500 }) ?? null,
    trialDays: trialEndRaw === 'now' ? null : days,
    trialEnd: trialEnd ?? null,
    missingPaymentMethod: missingPaymentMethod(params, ''),
    incompleteAllowed: behavior === 'default_incomplete',
    defaultPaymentMethod: text(params, 'default_payment_method') ?? null,
    automaticTax:
      tax === undefined ? false : (flag(tax, 'enabled', 'automatic_tax[enabled]') ?? false),
    discount: await discount(docs, params),
    schedule: (subscription) => {
      const end = cancelAt(params, () => itemOf(subscription).current_period_end);
      if (end !== undefined) return withCancelAt(subscription, end.at);
      return atPeriodEnd ? withCancelAtPeriodEnd(subscription, true) : subscription;
    },
  };
}

export function subscriptionCreateRoute(ctx: SimContext, expander: Expander): FastifyPluginAsync {
  return async (app) => {
    app.post('/subscriptions', async (request) => {
      const params = paramsOf(request);
      const input = await readCreate(ctx.docs, params);
      const { value } = await createSubscription(ctx, input, triggerOf(request));
      return expander.expand(value.subscription, expansions(params));
    });
  };
}
