// The change a subscription's schedule holds for later (a downgrade at the period's end), as the
// summary and an organisation's billing show it: only while it can still happen.
import type { BillingAccount } from '../model/accounts.ts';
import type { PendingChange } from '../model/subscriptions.ts';
import type { PendingChangesRepository } from '../ports/pending-changes.ts';
import { isLive, scheduledEnd } from './tier.ts';

/**
 * The change pending for the account's subscription, as its schedule's events stored it; none when
 * it can no longer happen: the subscription is not live, ends before it takes effect, or the time
 * it was due has passed (the subscription's own events tell the rest).
 */
export async function pendingChangeOf(
  pendingChanges: Pick<PendingChangesRepository, 'of'>,
  { subscription }: BillingAccount,
  now: Date,
): Promise<PendingChange | null> {
  if (subscription === null || !isLive(subscription.status)) return null;
  const pending = await pendingChanges.of(subscription.id);
  if (pending === null || pending.effectiveAt <= now) return null;
  const end = scheduledEnd(subscription);
  return end !== null && end <= pending.effectiveAt ? null : pending;
}
