// A marker event for tests that check a change sent nothing: a change of its own that does send
// one (customer.updated, for a customer made for it), through the same outbox and delivery as any
// event. Sent after the change answered, it lands after whatever the change would have set off.
import type Stripe from 'stripe';
import type { SimulatorStack } from './harness.ts';

/** Sends the marker and resolves once the receiver has it. */
export async function markerDelivered({ stripe, receiver }: SimulatorStack): Promise<void> {
  const customer = await stripe.customers.create({ email: 'marker@example.com' });
  await stripe.customers.update(customer.id, { metadata: { marker: 'sent' } });
  const arrived = () =>
    receiver.events.some(
      (e) => e.type === 'customer.updated' && (e.data.object as Stripe.Customer).id === customer.id,
    );
  const deadline = Date.now() + 5_000;
  while (!arrived()) {
    if (Date.now() > deadline) throw new Error('the marker event was not delivered within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
