// The webhook traffic of S2 and S3: `customer.subscription.updated` events as Stripe sends them
// (the whole subscription, built by the simulator's own builder, pretty-printed: about 5 KB), each
// a pure function of a sequence number, signed as Stripe signs (HMAC-SHA256 over "<t>.<body>"),
// so a redelivery can rebuild the exact bytes of an event without keeping them.
//
// Event n is for subscription n mod users and carries created = baseCreated + n: every event is
// strictly newer than the one before it for its subscription and than the seeded state, so the
// service's ordering guard decides without asking the provider (a same-second or unknown
// subscription would make it re-read the subscription from the simulator).
import type Stripe from 'stripe';
import { buildSubscription } from '@billing/payments-simulator/seed';
import { customerId, subscriptionId } from './database.ts';

export interface EventSource {
  webhookSecret: string;
  /** The seeded users' ids, by index; the events carry them as metadata.user_id. */
  userIds: readonly string[];
  baseCreated: number;
  prices: readonly [string, string];
}

export const eventId = (n: number) => `evt_bench_${n}`;

export function subscriptionOf(
  source: EventSource,
  n: number,
): { index: number; id: string; created: number } {
  const index = n % source.userIds.length;
  return { index, id: subscriptionId(index), created: source.baseCreated + n };
}

/** A monthly price as Stripe renders it inside a subscription item. */
const price = (id: string, created: number) =>
  ({
    id,
    object: 'price',
    active: true,
    billing_scheme: 'per_unit',
    created,
    currency: 'usd',
    custom_unit_amount: null,
    livemode: false,
    lookup_key: null,
    metadata: {},
    nickname: null,
    product: 'prod_bench',
    recurring: {
      interval: 'month',
      interval_count: 1,
      meter: null,
      trial_period_days: null,
      usage_type: 'licensed',
    },
    tax_behavior: 'unspecified',
    tiers_mode: null,
    transform_quantity: null,
    type: 'recurring',
    unit_amount: 1500,
    unit_amount_decimal: '1500',
  }) as unknown as Stripe.Price;

export function eventBody(source: EventSource, n: number): string {
  const { index, id, created } = subscriptionOf(source, n);
  const periodEnd = created + 30 * 86_400;
  const built = buildSubscription({
    customer: customerId(index),
    price: price(source.prices[n % 2]!, source.baseCreated - 86_400),
    quantity: 1,
    metadata: { user_id: source.userIds[index]! },
    description: null,
    start: periodEnd - 30 * 86_400,
    periodEnd,
  });
  // The builder's ids are random; the bench's are fixed, so that event n is the same bytes each time.
  const item = { ...built.items.data[0]!, id: `si_bench_${index}`, subscription: id };
  const subscription = {
    ...built,
    id,
    created: source.baseCreated - 86_400,
    default_payment_method: `pm_bench_${index}`,
    items: { ...built.items, data: [item], url: `/v1/subscription_items?subscription=${id}` },
  };
  const event = {
    id: eventId(n),
    object: 'event',
    api_version: '2026-10-28.endive',
    created,
    data: {
      object: subscription,
      previous_attributes: { items: { data: [{ price: { id: source.prices[(n + 1) % 2] } }] } },
    },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type: 'customer.subscription.updated',
  };
  return JSON.stringify(event, null, 2);
}
