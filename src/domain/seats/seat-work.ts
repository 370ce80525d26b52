// What gives the seat engine work (seat-sync.ts takes it from there): an organisation's
// subscription stored for the first time, or its status, quantity or item changed, whoever wrote
// it (an event, a provider read, a reconciliation, the engine's own push: webhooks/subscription-
// written.ts); a member recorded for the first time or back after a long absence
// (`OrganizationsRepository.recordMember`), and members lapsing (`SeatsRepository.markLapsed`),
// marked in the statements that record them.
import type { SubscriptionState } from '../model/subscriptions.ts';
import type { SeatsRepository } from '../ports/seats.ts';

type Written = Omit<SubscriptionState, 'revision'>;

/** Whether a write may have moved what the organisation should be billed for. */
export function seatsMayHaveMoved(before: SubscriptionState | null, after: Written): boolean {
  if (after.owner.type !== 'organization') return false;
  return (
    before === null ||
    before.owner.id !== after.owner.id ||
    before.status !== after.status ||
    before.quantity !== after.quantity ||
    before.itemId !== after.itemId
  );
}

/** Queues the seat engine's look at the organisation a written subscription bills, if it may have moved. */
export async function queueSeatWork(
  seats: Pick<SeatsRepository, 'mark'>,
  before: SubscriptionState | null,
  after: Written,
): Promise<void> {
  if (seatsMayHaveMoved(before, after)) await seats.mark(after.owner.id);
}
