// invoice.paid / invoice.payment_failed: the invoice says that something happened to a
// subscription, not its new state, so the subscription is read from the provider unless what we
// hold is newer than the invoice. A failure that leaves it past_due starts the grace period.
import type { PaymentEvent } from '../../model.ts';
import type { EventHandler } from '../context.ts';
import { prepareRead, syncSubscription } from '../subscription-sync.ts';

const subscriptionOf = (event: PaymentEvent) => (event.kind === 'invoice' ? event.subscriptionId : null);

export const invoiceSettled: EventHandler = {
  async prepare(event, ctx) {
    const id = subscriptionOf(event);
    if (id !== null) await prepareRead(ctx, id, event.created);
  },
  async apply(event, ctx) {
    const id = subscriptionOf(event);
    if (id !== null) await syncSubscription(ctx, id, event.created, null);
  },
};
