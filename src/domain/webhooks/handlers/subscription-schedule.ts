// subscription_schedule.created / .updated / .released / .canceled / .completed: the event carries
// the whole schedule, so nothing is read up front. What it holds for its subscription (the price
// of its next phase, or nothing once it ended) is stored under the same ordering rule as the
// subscription's own state: an older event never overwrites a newer one. Two active schedules'
// events of one second that say otherwise cannot be ranked: the provider's schedule, read with its
// subscription, decides. The tier is untouched: it follows the subscription's price when the
// subscription itself changes.
import type { ProviderSubscription } from '../../model/subscriptions.ts';
import type { ScheduleEvent } from '../../model/payment-events.ts';
import type { Repositories } from '../../ports/store.ts';
import type { EventHandler } from '../context.ts';
import { tellPendingChangeWritten, type Telling } from '../../events/subject-changes.ts';

export const subscriptionScheduleChanged: EventHandler<ScheduleEvent> = {
  kind: 'schedule',
  async apply(event, ctx) {
    const { id, subscriptionId, ended, change } = event.schedule;
    if (subscriptionId === null) return;
    const heard = {
      subscriptionId,
      scheduleId: id,
      change: ended ? null : change,
      ended,
      asOf: event.created,
    };
    const { tx, telling } = ctx;
    const record = async () =>
      tellPendingChangeWritten(tx, await tx.pendingChanges.record(heard), telling);
    if (!(await tx.pendingChanges.tiesWith(heard))) return record();
    const read = ctx.reads.usable(subscriptionId, await tx.subscriptions.find(subscriptionId));
    if (read.value === null) return record();
    await storeSchedule(ctx, read.value, read.readAt);
  },
};

/**
 * What a read of `subscription` said of the schedule managing it (a change pending, or none), as
 * of the read, under the ordering the schedule's events are stored by; nothing when the read did
 * not expand the schedule.
 */
export async function storeSchedule(
  { tx, telling }: { tx: Repositories; telling: Telling },
  subscription: ProviderSubscription,
  readAt: number,
): Promise<void> {
  const { schedule } = subscription;
  if (schedule === undefined) return;
  const owner =
    schedule === null
      ? await tx.pendingChanges.clear(subscription.id, readAt)
      : await tx.pendingChanges.record({
          subscriptionId: subscription.id,
          scheduleId: schedule.id,
          change: schedule.ended ? null : schedule.change,
          ended: schedule.ended,
          asOf: readAt,
        });
  await tellPendingChangeWritten(tx, owner, telling);
}
