// One webhook request, signed as Stripe signs: `Stripe-Signature: t=<unix seconds>,v1=<hex
// HMAC-SHA256>` over "<t>.<raw body>", keyed with the whole signing secret (whsec_... included).
// Only a 2xx counts; a redirect is not followed and counts as a failure, as with Stripe.
import { createHmac } from 'node:crypto';

export function signatureHeader(
  body: string,
  secret: string,
  timestamp = Math.floor(Date.now() / 1000),
): string {
  const signature = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${signature}`;
}

export interface PostResult {
  ok: boolean;
  /** Status and the start of the answer, or why there was none; shown on the dashboard. */
  detail: string;
}

export interface WebhookRequest {
  url: string;
  /** The event JSON. */
  body: string;
  secret: string;
  signal: AbortSignal;
}

/** POSTs the event JSON; null when `signal` was aborted by the caller (not by its timeout). */
export async function postEvent({
  url,
  body,
  secret,
  signal,
}: WebhookRequest): Promise<PostResult | null> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'stripe-signature': signatureHeader(body, secret),
        'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
      },
      body,
      redirect: 'manual',
      signal,
    });
    const text = (await response.text()).slice(0, 300);
    return {
      ok: response.status >= 200 && response.status < 300,
      detail: `${response.status} ${text}`.trim(),
    };
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'AbortError') return null;
    if (name === 'TimeoutError') return { ok: false, detail: 'no answer within the timeout' };
    return {
      ok: false,
      detail: (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message,
    };
  }
}
