// customer.subscription.created / .updated / .deleted: the event carries the whole subscription;
// the ordering guard decides whether it is newer than what we hold. (Deleted arrives with
// status `canceled`, so the three share one handler.)
import type { EventHandler } from '../context.ts';
import { applySubscriptionEvent } from '../subscription-sync.ts';

export const customerSubscriptionChanged: EventHandler = async (event, ctx) => {
  if (event.kind !== 'subscription') return;
  await applySubscriptionEvent(ctx, event.subscription, event.created);
};
