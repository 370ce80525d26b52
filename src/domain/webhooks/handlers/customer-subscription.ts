// customer.subscription.created / .updated / .deleted: the event carries the whole subscription,
// so nothing is read up front; the ordering guard decides in the transaction whether it is newer
// than what we hold. (Deleted arrives with status `canceled`, so the three share one handler.)
import type { EventHandler } from '../context.ts';
import { syncSubscription } from '../subscription-sync.ts';

export const customerSubscriptionChanged: EventHandler = {
  async apply(event, ctx) {
    if (event.kind === 'subscription') await syncSubscription(ctx, event.subscription.id, event.created, event.subscription);
  },
};
