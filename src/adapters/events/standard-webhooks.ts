// The Standard Webhooks signature (standardwebhooks.com): HMAC-SHA256, keyed with the bytes the
// base64 after `whsec_` decodes to, of "id.timestamp.body"; `v1,<base64>` per secret, joined by
// spaces, so a receiver holding either secret of a rotation accepts. Not the payment provider's
// scheme (adapters/payments/webhook-signature.ts), which keys with the whole secret text.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** A receiver accepts a timestamp this far from its own clock, either way. */
const TOLERANCE_SECONDS = 300;

const keyOf = (secret: string) => Buffer.from(secret.replace(/^whsec_/, ''), 'base64');

const sign = (secret: string, content: string) =>
  createHmac('sha256', keyOf(secret)).update(content).digest('base64');

/** The `webhook-signature` header: one `v1,` signature per secret. */
export function signatureHeader(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): string {
  return secrets.map((secret) => `v1,${sign(secret, `${id}.${timestamp}.${body}`)}`).join(' ');
}

/** The three headers of one attempt, signed at `now`. */
export function signedHeaders(
  secrets: readonly string[],
  id: string,
  body: string,
  now = new Date(),
): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(secrets, id, timestamp, body),
  };
}

/** Why a delivery is refused, or null when one of `secrets` signed it recently. */
export function verificationProblem(
  secrets: readonly string[],
  headers: Record<string, string | string[] | undefined>,
  body: string,
  now = new Date(),
): string | null {
  const [id, timestamp, signature] = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map(
    (name) => headers[name],
  );
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signature !== 'string')
    return 'missing webhook-id, webhook-timestamp or webhook-signature';
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || Math.abs(now.getTime() / 1000 - seconds) > TOLERANCE_SECONDS)
    return 'webhook-timestamp is not within 5 minutes';
  const given = signature
    .split(' ')
    .flatMap((entry) => (entry.startsWith('v1,') ? [Buffer.from(entry.slice(3), 'base64')] : []));
  const matches = secrets.some((secret) => {
    const expected = Buffer.from(sign(secret, `${id}.${timestamp}.${body}`), 'base64');
    return given.some((g) => g.length === expected.length && timingSafeEqual(g, expected));
  });
  return matches ? null : 'no signature matches';
}
