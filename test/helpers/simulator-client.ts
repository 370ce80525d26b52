// The official stripe SDK pointed at a test app's embedded simulator, for reading back what the
// service created there.
import Stripe from 'stripe';
import type { TestApp } from './app.ts';

export function simulatorClient(t: TestApp): Stripe {
  const url = new URL(t.composition.simulatorUrl!);
  return new Stripe(t.config.payments.apiKey, {
    host: url.hostname,
    port: url.port,
    protocol: 'http',
  });
}

const controlHeaders = (t: TestApp) => ({
  authorization: `Bearer ${t.config.payments.apiKey}`,
  'content-type': 'application/x-www-form-urlencoded',
});

/**
 * A change at the simulator whose events are lost (POST /_sim/drift/...): `subscriptions` with
 * `price` and `customer` or `email` makes one elsewhere; `subscriptions/<id>/<action>` changes one.
 */
export async function drift(
  t: TestApp,
  path: string,
  form: Record<string, string> = {},
): Promise<{ customer: Stripe.Customer; subscription: Stripe.Subscription }> {
  const response = await fetch(`${t.composition.simulatorUrl}/_sim/drift/${path}`, {
    method: 'POST',
    headers: controlHeaders(t),
    body: new URLSearchParams(form).toString(),
  });
  if (response.status !== 200)
    throw new Error(`drift ${path} answered ${response.status}: ${await response.text()}`);
  return response.json() as never;
}

/** The provider calls the simulator served since the last reset, by method and route. */
export async function providerCalls(t: TestApp): Promise<Record<string, number>> {
  const response = await fetch(`${t.composition.simulatorUrl}/_sim/calls`, {
    headers: controlHeaders(t),
  });
  return ((await response.json()) as { calls: Record<string, number> }).calls;
}

export async function resetProviderCalls(t: TestApp): Promise<void> {
  await fetch(`${t.composition.simulatorUrl}/_sim/calls`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${t.config.payments.apiKey}` },
  });
}

/** The quantities the provider's update events moved subscription `id` to, oldest first. */
export async function quantityChanges(stripe: Stripe, id: string): Promise<number[]> {
  const events = await stripe.events
    .list({ type: 'customer.subscription.updated', limit: 100 })
    .autoPagingToArray({ limit: 1000 });
  return events
    .filter((e) => (e.data.object as { id: string }).id === id)
    .filter((e) => JSON.stringify(e.data.previous_attributes ?? {}).includes('quantity'))
    .reverse()
    .map(
      (e) => (e.data.object as { items: { data: { quantity: number }[] } }).items.data[0]!.quantity,
    );
}
