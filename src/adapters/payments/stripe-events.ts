// WebhookVerifier for Stripe: the signature over the raw bytes, then, when asked for, the body as an
// event of either payload style (snapshot, `"object": "event"`; thin, `"object": "v2.core.event"`),
// translated into the domain's PaymentEvent. Before that, the event's id is read from the first
// bytes, where Stripe writes it, so a redelivery can be answered without parsing the body. An
// event's `created` may not exceed its signature's time (plus a small skew), so a signed event
// dated far ahead cannot pin a subscription against every later event.
import type Stripe from 'stripe';
import { DomainError } from '../../domain/errors.ts';
import type { PaymentEvent } from '../../domain/model/payment-events.ts';
import type { WebhookVerifier } from '../../domain/ports/webhook-verifier.ts';
import { isStorableText } from '../storable-text.ts';
import { toPaymentEvent, toThinEvent, type ThinEventJson } from './stripe-mapping.ts';
import { verifySignature } from './webhook-signature.ts';

function refuseUnstorable(_key: string, value: unknown): unknown {
  if (typeof value === 'string' && !isStorableText(value))
    throw new SyntaxError('string with characters that cannot be stored');
  return value;
}

// Those characters reach a JSON text only as \u escapes (a raw NUL is not valid JSON, and decoding
// UTF-8 never yields a lone surrogate), so only a text with such an escape is checked value by
// value: a reviver call per value would be the costliest JavaScript of a delivery.
const UNSTORABLE_ESCAPE = /\\u(?:0000|d[89a-f])/i;

type Parsed = { thin: false; event: Stripe.Event } | { thin: true; event: ThinEventJson };

function parseEvent(rawBody: Buffer): Parsed {
  let event: Stripe.Event | ThinEventJson;
  try {
    const text = rawBody.toString('utf8');
    event = JSON.parse(text, UNSTORABLE_ESCAPE.test(text) ? refuseUnstorable : undefined) as
      Stripe.Event | ThinEventJson;
  } catch {
    throw new DomainError('invalid_signature', 'Webhook body is not JSON');
  }
  const named = event && typeof event.id === 'string' && typeof event.type === 'string';
  if (named && event.object === 'v2.core.event' && typeof event.created === 'string')
    return { thin: true, event };
  const snapshot = event as Stripe.Event;
  if (named && Number.isInteger(snapshot.created) && typeof snapshot.data?.object === 'object')
    return { thin: false, event: snapshot };
  throw new DomainError('invalid_signature', 'Webhook body is not a payment event');
}

/** Seconds an event's `created` may exceed its signature's timestamp (one provider, one clock). */
export const CREATED_AFTER_SIGNATURE_SKEW_SECONDS = 60;

// Stripe writes an event's id as its first member, in both payload styles; a body that begins
// otherwise is simply parsed. (JSON.parse would keep the last of two `id` members, but a body
// signed with our secret is the provider's own, and it writes each member once.)
const LEADING_ID = /^\s*\{\s*"id"\s*:\s*"([\w-]{1,255})"\s*,/d;
const LEADING_BYTES = 300;

/** The id as a string of its own: a match would keep the whole text it was cut from alive. */
function leadingId(rawBody: Buffer): string | null {
  const [start, end] =
    LEADING_ID.exec(rawBody.toString('latin1', 0, LEADING_BYTES))?.indices?.[1] ?? [];
  return start === undefined ? null : rawBody.toString('latin1', start, end);
}

function translated(rawBody: Buffer, signedAt: number): PaymentEvent {
  const parsed = parseEvent(rawBody);
  let event: PaymentEvent;
  try {
    event = parsed.thin ? toThinEvent(parsed.event) : toPaymentEvent(parsed.event);
  } catch {
    throw new DomainError(
      'invalid_signature',
      `Webhook event ${parsed.event.id} does not have the shape of an event`,
    );
  }
  if (event.created > signedAt + CREATED_AFTER_SIGNATURE_SKEW_SECONDS)
    throw new DomainError(
      'invalid_signature',
      `Webhook event ${event.id} is dated after it was signed`,
    );
  return event;
}

export function createStripeWebhookVerifier(secrets: readonly string[]): WebhookVerifier {
  return {
    verify(rawBody, signatureHeader) {
      const signedAt = verifySignature(rawBody, signatureHeader, secrets);
      return { id: leadingId(rawBody), event: () => translated(rawBody, signedAt) };
    },
  };
}
