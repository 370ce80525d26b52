// Turns a delivery's raw bytes into a verified provider event.
import type { PaymentEvent } from '../model.ts';

export interface WebhookVerifier {
  /** Checks the signature over the raw bytes and parses the event, or throws DomainError('invalid_signature'). */
  verify(rawBody: Buffer, signatureHeader: string | undefined): PaymentEvent;
}
