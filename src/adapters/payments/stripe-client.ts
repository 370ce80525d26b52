// The official Stripe SDK, configured once: API version pinned, pointed at PAYMENTS_API_BASE when
// set (the simulator or another Stripe-compatible server), with a bounded time per call.
import { urlToHttpOptions } from 'node:url';
import Stripe from 'stripe';

export const STRIPE_API_VERSION = '2026-10-28.endive';
/** Per attempt; with one retry a call gives up within about twice this. */
export const STRIPE_TIMEOUT_MS = 5_000;

export function createStripeClient(apiKey: string, apiBase: string | null): Stripe {
  // As a socket wants them: an IPv6 address without the brackets a URL writes it in.
  const base = apiBase ? urlToHttpOptions(new URL(apiBase)) : null;
  return new Stripe(apiKey, {
    apiVersion: STRIPE_API_VERSION,
    timeout: STRIPE_TIMEOUT_MS,
    maxNetworkRetries: 1,
    telemetry: false,
    ...(base && {
      host: base.hostname!,
      port: base.port ?? (base.protocol === 'https:' ? 443 : 80),
      protocol: base.protocol === 'https:' ? 'https' : 'http',
    }),
  });
}
