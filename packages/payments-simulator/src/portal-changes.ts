// What the billing portal changes, as its configuration (portal-rules.ts) allows: a new price (the
// quantity kept), applied now and prorated as the configuration's proration_behavior says, or when a
// schedule_at_period_end condition holds, scheduled for the period's end with a subscription
// schedule (from the subscription: its current price until the period's end, then the new one;
// end_behavior release). Stripe does not publish the schedule its portal writes: this one is the
// usual "downgrade at period end" schedule. Meanwhile the portal shows the pending change and lets
// the customer keep the current plan (the schedule released: inferred), and cancelling at the
// period end releases the schedule first, then sets cancel_at (inferred: a subscription a schedule
// manages refuses a change of its cancellation).
import type Stripe from 'stripe';
import { mutate, type Outcome, type SimContext } from './context.ts';
import { invalidParam } from './errors.ts';
import { AUTOMATIC } from './events.ts';
import { changeItem, type ProrationBehavior } from './item-change.ts';
import { buildPhase } from './objects/schedules.ts';
import { itemOf, periodEndOf, scheduledEnd, scheduleIdOf } from './objects/subscriptions.ts';
import { changeWaits, type PortalRules } from './portal-rules.ts';
import { attach, release, scheduleOf } from './schedule-lifecycle.ts';
import { withCancelAt } from './subscription-changes.ts';
import { ENDED, locked, update, type Changed } from './subscription-lifecycle.ts';
import { nowSeconds } from './time.ts';

type Subscription = Stripe.Subscription;

/** What a portal change did: applied now, or scheduled (the price the period's end brings). */
export interface PortalOutcome extends Changed {
  scheduled: { price: Stripe.Price; at: number } | null;
}

/** The price asked for, among those the configuration offers. */
function offered(rules: PortalRules, id: string): Stripe.Price {
  const price = rules.prices.find((each) => each.id === id);
  if (price === undefined)
    throw invalidParam(`This portal does not offer the price ${id}.`, 'price');
  return price;
}

function refuseUnchangeable(subscription: Subscription): void {
  if (ENDED.includes(subscription.status))
    throw invalidParam(
      `Subscription ${subscription.id} is ${subscription.status}; its plan cannot change.`,
    );
  if (scheduledEnd(subscription) !== null)
    throw invalidParam(
      `Subscription ${subscription.id} is set to cancel at the end of its period; renew it before changing plans.`,
    );
  if (scheduleIdOf(subscription) !== null)
    throw invalidParam(
      'A change is already scheduled: keep the current plan first to make another.',
    );
}

export function portalUpdate(
  ctx: SimContext,
  rules: PortalRules,
  id: string,
  priceId: string,
): Promise<Outcome<PortalOutcome>> {
  return mutate(ctx, AUTOMATIC, async (unit) => {
    const before = await locked(unit, id);
    refuseUnchangeable(before);
    const item = itemOf(before);
    const from = { price: item.price, quantity: item.quantity ?? 1 };
    if (priceId === from.price.id)
      throw invalidParam(`Subscription ${id} is already on price ${priceId}.`, 'price');
    const to = { price: offered(rules, priceId), quantity: from.quantity };
    if (changeWaits(rules.configuration, before, to.price)) {
      const end = item.current_period_end;
      const phases = [
        buildPhase({ start: item.current_period_start, end, ...from }),
        buildPhase({ start: end, end: periodEndOf(to.price, end), ...to }),
      ];
      const made = await attach(unit, before, phases, { at: nowSeconds() });
      await update(unit, before, made.subscription);
      return {
        subscription: made.subscription,
        invoice: null,
        scheduled: { price: to.price, at: end },
      };
    }
    const proration = rules.configuration.features.subscription_update
      .proration_behavior as ProrationBehavior;
    const changed = await changeItem(unit, before, before, {
      item: item.id,
      price: to.price.id,
      quantity: to.quantity,
      proration,
    });
    return { ...changed, scheduled: null };
  });
}

/** Keeps the current plan: the schedule that would change it is released. */
export function keepCurrentPlan(ctx: SimContext, id: string): Promise<Outcome<Changed>> {
  return mutate(ctx, AUTOMATIC, async (unit) => {
    const before = await locked(unit, id);
    const schedule = await scheduleOf(unit.docs, before);
    if (schedule === null) throw invalidParam('No change is scheduled for this subscription.');
    const after = await release(unit, schedule, before, { at: nowSeconds() });
    await update(unit, before, after);
    return { subscription: after, invoice: null };
  });
}

/** Cancels at the period's end as the portal does: cancel_at, after releasing any schedule. */
export function portalCancelAtPeriodEnd(ctx: SimContext, id: string): Promise<Outcome<Changed>> {
  return mutate(ctx, AUTOMATIC, async (unit) => {
    const before = await locked(unit, id);
    const schedule = await scheduleOf(unit.docs, before);
    const unscheduled =
      schedule === null ? before : await release(unit, schedule, before, { at: nowSeconds() });
    const after = withCancelAt(unscheduled, itemOf(before).current_period_end);
    await update(unit, before, after);
    return { subscription: after, invoice: null };
  });
}
