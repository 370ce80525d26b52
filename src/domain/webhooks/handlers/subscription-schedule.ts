// subscription_schedule.created / .updated / .released / .canceled / .completed: the event carries
// the whole schedule, so nothing is read up front. What it holds for its subscription (the price
// of its next phase, or nothing once it ended) is stored under the same ordering rule as the
// subscription's own state: an older event never overwrites a newer one. The tier is untouched:
// it follows the subscription's price when the subscription itself changes.
import type { ScheduleEvent } from '../../model.ts';
import type { EventHandler } from '../context.ts';

export const subscriptionScheduleChanged: EventHandler<ScheduleEvent> = {
  kind: 'schedule',
  async apply(event, ctx) {
    const { id, subscriptionId, ended, change } = event.schedule;
    if (subscriptionId === null) return;
    await ctx.tx.pendingChanges.record({
      subscriptionId,
      scheduleId: id,
      change: ended ? null : change,
      ended,
      asOf: event.created,
    });
  },
};
