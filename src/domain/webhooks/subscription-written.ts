// What follows every write of a stored subscription, in the same transaction, wherever it came from
// (an event, a provider read, a listing, the seat engine's answer): the subject marked as having
// subscribed when the subscription is new to it (one trial per subject, ever: billing/offer.ts),
// the seat engine's work queued (seats/seat-work.ts), and the application told what changed
// (events/subject-changes.ts).
import type { SubscriptionState } from '../model/subscriptions.ts';
import type { Repositories } from '../ports/store.ts';
import {
  tellSubscriptionWritten,
  type SubscriptionWrite,
  type Telling,
} from '../events/subject-changes.ts';
import { queueSeatWork } from '../seats/seat-work.ts';

/** Records `after.createdAt` as when its subject first subscribed, when the subscription is new to it. */
async function markSubscribed(
  tx: Repositories,
  before: SubscriptionState | null,
  { owner, createdAt }: SubscriptionWrite['after'],
) {
  if (before !== null && before.owner.type === owner.type && before.owner.id === owner.id) return;
  if (owner.type === 'user') await tx.users.markSubscribed(owner.id, createdAt);
  else await tx.organizations.markSubscribed(owner.id, createdAt);
}

export async function subscriptionWritten(
  tx: Repositories,
  write: SubscriptionWrite,
  telling: Telling,
): Promise<void> {
  await markSubscribed(tx, write.before, write.after);
  await queueSeatWork(tx.seats, write.before, write.after);
  await tellSubscriptionWritten(tx, write, telling);
}
