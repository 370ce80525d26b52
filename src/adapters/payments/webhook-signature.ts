// Stripe's webhook signature scheme, checked over the raw bytes: header `t=<unix>,v1=<hex>[,v1=...]`,
// HMAC-SHA256 of "<t>.<body>" with any of the configured secrets (rotation), compared in
// constant time, and a timestamp within the tolerance either way (a future one is refused too).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { DomainError } from '../../domain/errors.ts';

export const SIGNATURE_TOLERANCE_SECONDS = 300;

function invalid(reason: string): DomainError {
  return new DomainError('invalid_signature', `Invalid webhook signature: ${reason}`);
}

function parseHeader(header: string): { timestamp: number; signatures: Buffer[] } {
  let timestamp = NaN;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const [key, value = ''] = part.trim().split('=', 2);
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(Buffer.from(value, 'hex'));
  }
  if (Number.isNaN(timestamp) || signatures.length === 0)
    throw invalid('malformed Stripe-Signature header');
  return { timestamp, signatures };
}

/** Returns the signature's timestamp (unix seconds): when the provider signed this delivery. */
export function verifySignature(
  rawBody: Buffer,
  header: string | undefined,
  secrets: readonly string[],
  now = Date.now(),
): number {
  if (header === undefined || header === '') throw invalid('missing Stripe-Signature header');
  const { timestamp, signatures } = parseHeader(header);
  if (Math.abs(Math.floor(now / 1000) - timestamp) > SIGNATURE_TOLERANCE_SECONDS)
    throw invalid('timestamp outside the tolerance');
  const matches = secrets.some((secret) => {
    // The digest's bytes, compared with the header's: no hex text made and decoded per delivery.
    const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
    return signatures.some((candidate) => timingSafeEqual(candidate, expected));
  });
  if (!matches) throw invalid('no signature matches');
  return timestamp;
}
