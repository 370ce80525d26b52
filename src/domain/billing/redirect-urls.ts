// Where the provider may send the user back. A client may choose the page, never the site: the
// URL must be absolute http(s), carry no credentials, and have an allowed origin. Anything the
// WHATWG parser would read differently from a person (scheme-relative, backslashes, control or
// non-ASCII characters) is refused before parsing.
import { DomainError } from '../errors.ts';

const MAX_URL_LENGTH = 2048;

function refuse(field: string, input: string, reason: string): DomainError {
  return new DomainError('invalid_redirect_url', reason, { field, input });
}

export function checkRedirectUrl(
  field: string,
  input: string,
  allowedOrigins: readonly string[],
): string {
  if (input.length > MAX_URL_LENGTH)
    throw refuse(field, input, `URL must be at most ${MAX_URL_LENGTH} characters`);
  // Printable ASCII only: look-alike (full-width, zero-width) spellings of an allowed host and
  // characters the provider cannot encode are refused rather than normalised. Percent-encode the rest.
  if (!/^https?:\/\/[^/\\]/i.test(input) || !/^[\x21-\x7e]+$/.test(input) || input.includes('\\')) {
    throw refuse(field, input, 'URL must be an absolute http(s) URL');
  }
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw refuse(field, input, 'URL must be an absolute http(s) URL');
  }
  if (url.username !== '' || url.password !== '')
    throw refuse(field, input, 'URL must not contain credentials');
  if (!allowedOrigins.includes(url.origin)) {
    throw refuse(
      field,
      input,
      `URL origin ${url.origin} is not allowed; allowed: ${allowedOrigins.join(', ')}`,
    );
  }
  return input;
}

/** Where a checkout sends the user back, as its request may ask. */
export interface CheckoutInput {
  success_url?: string;
  cancel_url?: string;
}

/** A checkout's return URLs: the request's, once allowed, else the service's own pages. */
export function checkoutReturnUrls(
  input: CheckoutInput,
  { appUrl, allowedOrigins }: { appUrl: string; allowedOrigins: readonly string[] },
): { successUrl: string; cancelUrl: string } {
  return {
    successUrl:
      input.success_url === undefined
        ? `${appUrl}/billing/success?session_id={CHECKOUT_SESSION_ID}`
        : checkRedirectUrl('success_url', input.success_url, allowedOrigins),
    cancelUrl:
      input.cancel_url === undefined
        ? `${appUrl}/billing/cancel`
        : checkRedirectUrl('cancel_url', input.cancel_url, allowedOrigins),
  };
}
