// invoice.paid / invoice.payment_failed: the invoice says that something happened to a
// subscription, not its new state, so the subscription is re-read from the provider. A failure
// that leaves it past_due starts the grace period (see subscription-sync).
import type { EventHandler } from '../context.ts';
import { refreshSubscription } from '../subscription-sync.ts';

export const invoiceSettled: EventHandler = async (event, ctx) => {
  if (event.kind !== 'invoice' || event.subscriptionId === null) return;
  await refreshSubscription(ctx, event.subscriptionId, event.created);
};
