// Thin events, as an event destination with thin payloads receives them: a v2 notification
// (`"object": "v2.core.event"`, type `v1.<snapshot type>`, `created` as an ISO string) that names
// the object it is about (`related_object`: its id, its type, the URL to read it at) and carries
// none of it. Each is rendered from the snapshot event it stands for (`snapshot_event`), so the
// two styles describe the same changes; its id is derived from the snapshot's, so a resend is the
// same notification and GET /v2/core/events/:id finds it.
import type { SimEvent } from './events.ts';

export interface ThinEvent {
  id: string;
  object: 'v2.core.event';
  created: string;
  livemode: boolean;
  /** Only for a change an API request caused. */
  reason?: { type: 'request'; request: { id: string; idempotency_key: string } };
  related_object: { id: string; type: string; url: string } | null;
  snapshot_event: string;
  type: string;
}

const THIN_PREFIX = 'evt_thin_';

/** The thin notification's id for a snapshot event's id, and back (null: not a thin id). */
export const thinIdOf = (snapshotId: string): string =>
  `${THIN_PREFIX}${snapshotId.replace(/^evt_/, '')}`;
export const snapshotIdOf = (thinId: string): string | null =>
  thinId.startsWith(THIN_PREFIX) ? `evt_${thinId.slice(THIN_PREFIX.length)}` : null;

/** Where each kind of object is read, as Stripe's related_object.url says. */
const COLLECTIONS: Record<string, string> = {
  'checkout.session': '/v1/checkout/sessions',
  charge: '/v1/charges',
  customer: '/v1/customers',
  invoice: '/v1/invoices',
  payment_intent: '/v1/payment_intents',
  payment_method: '/v1/payment_methods',
  price: '/v1/prices',
  product: '/v1/products',
  refund: '/v1/refunds',
  subscription: '/v1/subscriptions',
};

function relatedObject(object: unknown): ThinEvent['related_object'] {
  const { id, object: type } = (object ?? {}) as { id?: unknown; object?: unknown };
  if (typeof id !== 'string' || typeof type !== 'string') return null;
  const collection = COLLECTIONS[type] ?? `/v1/${type.replaceAll('.', '/')}s`;
  return { id, type, url: `${collection}/${id}` };
}

export function thinEventOf(event: SimEvent): ThinEvent {
  const { id, idempotency_key } = event.request;
  return {
    id: thinIdOf(event.id),
    object: 'v2.core.event',
    created: new Date(event.created * 1000).toISOString(),
    livemode: event.livemode,
    ...(id !== null && {
      reason: { type: 'request', request: { id, idempotency_key: idempotency_key ?? '' } },
    }),
    related_object: relatedObject(event.data.object),
    snapshot_event: event.id,
    type: `v1.${event.type}`,
  };
}
