// customer.subscription.created / .updated / .deleted: the event carries the whole subscription,
// so nothing is read up front; the ordering guard decides in the transaction whether it is newer
// than what we hold. (Deleted arrives with status `canceled`, so the three share one handler.)
import type { SubscriptionEvent } from '../../model/payment-events.ts';
import type { EventHandler } from '../context.ts';
import { syncSubscription } from '../subscription-sync.ts';

export const customerSubscriptionChanged: EventHandler<SubscriptionEvent> = {
  kind: 'subscription',
  async apply(event, ctx) {
    await syncSubscription(ctx, event.subscription.id, event.created, event.subscription);
  },
};
