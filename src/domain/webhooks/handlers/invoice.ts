// invoice.paid / invoice.payment_failed: the invoice says that something happened to a
// subscription, not its new state, so the subscription is read from the provider unless what we
// hold is newer than the invoice. A failure that leaves it past_due starts the grace period. A paid
// invoice that opens a new period grants its tier's credits (period-grant.ts).
import type { InvoiceEvent } from '../../model/payment-events.ts';
import type { EventHandler } from '../context.ts';
import { prepareRead, syncSubscription } from '../subscription-sync.ts';
import { grantPaidPeriod } from './period-grant.ts';

export const invoiceSettled: EventHandler<InvoiceEvent> = {
  kind: 'invoice',
  async prepare(event, ctx) {
    if (event.subscriptionId !== null) await prepareRead(ctx, event.subscriptionId, event.created);
  },
  async apply(event, ctx) {
    if (event.subscriptionId === null) return;
    // Credits first: every transaction locks a subject's balance before what it was told (the
    // outbox), or two of them could wait on each other.
    if (event.type === 'invoice.paid' || event.type === 'v1.invoice.paid')
      await grantPaidPeriod(event, ctx);
    await syncSubscription(ctx, event.subscriptionId, event.created, null);
  },
};
