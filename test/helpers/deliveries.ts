// The simulator's delivery log as a signal: once it lists no event whose delivery has not
// succeeded (GET /v1/events?delivery_success=false), every event it recorded so far was answered
// 2xx by the webhook endpoint. Whatever those deliveries would have done is then done, so a test
// can look for what they must not have done, or collect what they brought.
import type Stripe from 'stripe';

export async function allDelivered(stripe: Stripe, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = (await stripe.events.list({ delivery_success: false, limit: 100 })).data;
    if (pending.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(
        `still undelivered after ${timeoutMs} ms: ${pending.map((e) => `${e.type} ${e.id}`).join(', ')}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
