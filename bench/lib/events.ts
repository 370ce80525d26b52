// The webhook traffic of S2 and S3: `customer.subscription.updated` events in Stripe's current
// shape, each a pure function of a sequence number, signed as Stripe signs (HMAC-SHA256 over
// "<t>.<body>"), so a redelivery can rebuild the exact bytes of an event without keeping them.
//
// Event n is for subscription n mod users and carries created = baseCreated + n: every event is
// strictly newer than the one before it for its subscription and than the seeded state, so the
// service's ordering guard decides without asking the provider (a same-second or unknown
// subscription would make it re-read the subscription from the simulator).
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

export function eventBody(source: EventSource, n: number): string {
  const { index, id, created } = subscriptionOf(source, n);
  const periodEnd = created + 30 * 86_400;
  return JSON.stringify({
    id: eventId(n),
    object: 'event',
    api_version: '2026-10-28.endive',
    created,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type: 'customer.subscription.updated',
    data: {
      object: {
        id,
        object: 'subscription',
        customer: customerId(index),
        status: 'active',
        cancel_at_period_end: false,
        created: source.baseCreated - 86_400,
        livemode: false,
        metadata: { user_id: source.userIds[index] },
        items: {
          object: 'list',
          has_more: false,
          url: `/v1/subscription_items?subscription=${id}`,
          data: [
            {
              id: `si_bench_${index}`,
              object: 'subscription_item',
              subscription: id,
              quantity: 1,
              current_period_start: periodEnd - 30 * 86_400,
              current_period_end: periodEnd,
              price: {
                id: source.prices[n % 2],
                object: 'price',
                currency: 'usd',
                unit_amount: 1500,
                recurring: { interval: 'month', interval_count: 1 },
              },
            },
          ],
        },
      },
      previous_attributes: { items: { data: [{ price: { id: source.prices[(n + 1) % 2] } }] } },
    },
  });
}
