// v1.customer.subscription.created / .updated / .deleted as thin events: the event says that the
// subscription changed, and when, and carries none of it. So the subscription is read from the
// provider, outside the transaction, unless what is stored is newer than the event, and the read
// is applied as after an invoice event.
import type { SubscriptionNotice } from '../../model/payment-events.ts';
import type { EventHandler } from '../context.ts';
import { prepareRead, syncSubscription } from '../subscription-sync.ts';

export const subscriptionNotice: EventHandler<SubscriptionNotice> = {
  kind: 'subscription_notice',
  async prepare(event, ctx) {
    await prepareRead(ctx, event.subscriptionId, event.created);
  },
  async apply(event, ctx) {
    await syncSubscription(ctx, event.subscriptionId, event.created, null);
  },
};
