// The secret key check: `Authorization: Bearer <key>` (or HTTP Basic with the key as user name,
// which Stripe also accepts). A missing or wrong key is Stripe's 401.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { StripeApiError } from './errors.ts';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

function presentedKey(header: string | undefined): string | null {
  if (header === undefined) return null;
  const [scheme, value = ''] = header.trim().split(/\s+/, 2);
  if (scheme?.toLowerCase() === 'bearer') return value;
  if (scheme?.toLowerCase() === 'basic')
    return Buffer.from(value, 'base64').toString('utf8').split(':')[0] ?? '';
  return '';
}

const redact = (key: string): string =>
  key.length <= 12
    ? '*'.repeat(key.length)
    : `${key.slice(0, 8)}${'*'.repeat(key.length - 12)}${key.slice(-4)}`;

export function apiKeyCheck(apiKey: string): (request: FastifyRequest) => Promise<void> {
  const expected = digest(apiKey);
  return async (request) => {
    const key = presentedKey(request.headers.authorization);
    if (key === null || key === '') {
      throw new StripeApiError(
        401,
        "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.",
        { headers: { 'www-authenticate': 'Bearer realm="Stripe"' } },
      );
    }
    if (!timingSafeEqual(digest(key), expected)) {
      throw new StripeApiError(401, `Invalid API Key provided: ${redact(key)}`, {
        headers: { 'www-authenticate': 'Bearer realm="Stripe"' },
      });
    }
  };
}
