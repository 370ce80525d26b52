// WebhookVerifier for Stripe: verify the signature over the raw bytes, check the body is an
// event, then translate it into the domain's PaymentEvent. An event cannot have been created after
// it was signed: its `created` is bounded by the signature's timestamp (plus a small skew), so a
// signed event dated far ahead cannot pin a subscription against every later event.
import type Stripe from 'stripe';
import { DomainError } from '../../domain/errors.ts';
import type { WebhookVerifier } from '../../domain/ports/webhook-verifier.ts';
import { isStorableText } from '../storable-text.ts';
import { toPaymentEvent } from './stripe-mapping.ts';
import { verifySignature } from './webhook-signature.ts';

function refuseUnstorable(_key: string, value: unknown): unknown {
  if (typeof value === 'string' && !isStorableText(value))
    throw new SyntaxError('string with characters that cannot be stored');
  return value;
}

// Those characters reach a JSON text only as \u escapes (a raw NUL is not valid JSON, and decoding
// UTF-8 never yields a lone surrogate), so only a text with such an escape is checked value by
// value: a reviver call per value was the costliest JavaScript of a delivery in the profile.
const UNSTORABLE_ESCAPE = /\\u(?:0000|d[89a-f])/i;

function parseEvent(rawBody: Buffer): Stripe.Event {
  let event: Stripe.Event;
  try {
    const text = rawBody.toString('utf8');
    event = JSON.parse(
      text,
      UNSTORABLE_ESCAPE.test(text) ? refuseUnstorable : undefined,
    ) as Stripe.Event;
  } catch {
    throw new DomainError('invalid_signature', 'Webhook body is not JSON');
  }
  const valid =
    event &&
    typeof event.id === 'string' &&
    typeof event.type === 'string' &&
    Number.isInteger(event.created) &&
    typeof event.data?.object === 'object';
  if (!valid) throw new DomainError('invalid_signature', 'Webhook body is not a payment event');
  return event;
}

/** Seconds an event's `created` may exceed its signature's timestamp (one provider, one clock). */
export const CREATED_AFTER_SIGNATURE_SKEW_SECONDS = 60;

export function createStripeWebhookVerifier(secrets: readonly string[]): WebhookVerifier {
  return {
    verify(rawBody, signatureHeader) {
      const signedAt = verifySignature(rawBody, signatureHeader, secrets);
      const event = parseEvent(rawBody);
      if (event.created > signedAt + CREATED_AFTER_SIGNATURE_SKEW_SECONDS) {
        throw new DomainError(
          'invalid_signature',
          `Webhook event ${event.id} is dated after it was signed`,
        );
      }
      try {
        return toPaymentEvent(event);
      } catch {
        throw new DomainError(
          'invalid_signature',
          `Webhook event ${event.id} does not have the shape of a ${event.type} event`,
        );
      }
    },
  };
}
