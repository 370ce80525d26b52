// Turns a delivery's raw bytes into a verified provider event.
import type { PaymentEvent } from '../model/payment-events.ts';

/** A delivery whose signature holds; its body is parsed only when its event is asked for. */
export interface VerifiedDelivery {
  /** The event's id where it can be read without parsing the body; null otherwise. */
  readonly id: string | null;
  /** The event, parsed and translated, or throws DomainError('invalid_signature'). */
  event(): PaymentEvent;
}

export interface WebhookVerifier {
  /** Checks the signature over the raw bytes, or throws DomainError('invalid_signature'). */
  verify(rawBody: Buffer, signatureHeader: string | undefined): VerifiedDelivery;
}
