// What the subscription schedules API does, each in one transaction with its events
// (schedule-lifecycle.ts): a schedule made from a subscription as it is (one phase, its current
// period, released at its end), its phases, end_behavior and metadata updated (the current phase's
// price applied to the subscription now, prorated as `proration_behavior` says; `end_behavior=cancel`
// sets the subscription's cancel_at to the last phase's end), released, or canceled with its
// subscription. Refusals whose words Stripe does not publish are the simulator's.
import type Stripe from 'stripe';
import type { PhaseRequest, ScheduleUpdate, When } from './api/schedule-params.ts';
import { mutate, type Outcome, type SimContext, type Unit } from './context.ts';
import { invalidParam } from './errors.ts';
import type { Trigger } from './events.ts';
import { changeItem } from './item-change.ts';
import {
  buildPhase,
  cancelAtOf,
  currentPhaseOf,
  phaseItem,
  type Phase,
  type Schedule,
} from './objects/schedules.ts';
import { itemOf, periodEndOf, scheduledEnd } from './objects/subscriptions.ts';
import { mergeMetadata } from './params.ts';
import { attach, change, release } from './schedule-lifecycle.ts';
import type { Documents } from './store.ts';
import { cancelLocked } from './subscription-changes.ts';
import { ENDED, locked, update } from './subscription-lifecycle.ts';
import { nowSeconds, periodEnd } from './time.ts';
import { requireRecurring } from './objects/one-time-prices.ts';

type Subscription = Stripe.Subscription;

/** The subscription's own clock: now, or the start of a period the dashboard moved it into. */
const clockOf = (subscription: Subscription): number =>
  Math.max(nowSeconds(), itemOf(subscription).current_period_start);

export function scheduleFromSubscription(
  ctx: SimContext,
  { subscription: id, metadata }: { subscription: string; metadata: Record<string, string> },
  trigger: Trigger,
): Promise<Outcome<Schedule>> {
  return mutate(ctx, trigger, async (unit) => {
    const before = (
      await unit.docs.require<Subscription>('subscription', id, {
        lock: true,
        param: 'from_subscription',
      })
    ).data;
    if (ENDED.includes(before.status))
      throw invalidParam(
        `Subscription ${id} is ${before.status}; it cannot be given a schedule.`,
        'from_subscription',
      );
    if (before.schedule !== null)
      throw invalidParam(
        `Subscription ${id} is already managed by a subscription schedule.`,
        'from_subscription',
      );
    if (scheduledEnd(before) !== null)
      throw invalidParam(
        `Subscription ${id} is set to cancel; a schedule cannot be made from it.`,
        'from_subscription',
      );
    const item = itemOf(before);
    const phase = buildPhase({
      start: item.current_period_start,
      end: item.current_period_end,
      price: item.price,
      quantity: item.quantity ?? 1,
    });
    const made = await attach(unit, before, [phase], { at: nowSeconds(), metadata });
    await update(unit, before, made.subscription);
    return made.schedule;
  });
}

const whenOf = (value: When, now: number): number => (value === 'now' ? now : value);

/** The phases requested, dated one after another (each starts where the one before ends). */
async function phasesOf(docs: Documents, requests: PhaseRequest[], now: number): Promise<Phase[]> {
  const phases: Phase[] = [];
  for (const [index, request] of requests.entries()) {
    const param = `phases[${index}]`;
    const previous = phases.at(-1)?.end_date;
    if (request.start === undefined && previous === undefined)
      throw invalidParam(`Missing required param: ${param}[start_date].`, `${param}[start_date]`);
    const start = request.start === undefined ? previous! : whenOf(request.start, now);
    if (previous !== undefined && start !== previous)
      throw invalidParam(
        `${param}[start_date] must be the end of the phase before it.`,
        `${param}[start_date]`,
      );
    const { data: price } = await docs.require<Stripe.Price>('price', request.price, {
      param: `${param}[items][0][price]`,
    });
    requireRecurring(price, `${param}[items][0][price]`);
    const last = index === requests.length - 1;
    const end =
      request.end !== undefined
        ? whenOf(request.end, now)
        : request.duration !== undefined
          ? periodEnd(start, request.duration)
          : last
            ? periodEndOf(price, start)
            : undefined;
    if (end === undefined)
      throw invalidParam(
        `Missing required param: ${param}[end_date] (or ${param}[duration]).`,
        `${param}[end_date]`,
      );
    if (end <= start)
      throw invalidParam(
        `${param}[end_date] must be after the phase's start.`,
        `${param}[end_date]`,
      );
    phases.push(
      buildPhase({
        start,
        end,
        price,
        quantity: request.quantity,
        proration: request.proration,
        metadata: request.metadata,
      }),
    );
  }
  return phases;
}

/** The schedule `id` (locked) and its subscription (locked), while the schedule is active. */
async function activeSchedule(unit: Unit, id: string, action: string) {
  const { data: schedule } = await unit.docs.require<Schedule>('subscription_schedule', id, {
    lock: true,
  });
  if (schedule.status !== 'active')
    throw invalidParam(`You cannot ${action} a subscription schedule that is ${schedule.status}.`);
  return { schedule, subscription: await locked(unit, String(schedule.subscription)) };
}

export function updateSchedule(
  ctx: SimContext,
  id: string,
  request: ScheduleUpdate,
  trigger: Trigger,
): Promise<Outcome<Schedule>> {
  return mutate(ctx, trigger, async (unit) => {
    const { schedule, subscription } = await activeSchedule(unit, id, 'update');
    const clock = clockOf(subscription);
    const phases =
      request.phases === undefined
        ? schedule.phases
        : await phasesOf(unit.docs, request.phases, clock);
    const current = phases.find((phase) => phase.start_date <= clock && clock < phase.end_date);
    if (current === undefined)
      throw invalidParam(
        'The phases must include the current one: a phase that has started and not ended.',
        'phases',
      );
    const after: Schedule = {
      ...schedule,
      phases,
      current_phase: currentPhaseOf(current),
      end_behavior: request.endBehavior ?? schedule.end_behavior,
      metadata: mergeMetadata(schedule.metadata ?? {}, request.metadata),
    };
    await change(unit, schedule, after);
    const cancelAt =
      cancelAtOf(after) ?? (cancelAtOf(schedule) === null ? subscription.cancel_at : null);
    const edited: Subscription = { ...subscription, cancel_at: cancelAt };
    const { price, quantity } = phaseItem(current);
    await changeItem(unit, subscription, edited, {
      item: itemOf(subscription).id,
      price,
      quantity,
      proration: request.proration ?? 'create_prorations',
    });
    return after;
  });
}

export function releaseSchedule(
  ctx: SimContext,
  id: string,
  preserveCancelDate: boolean,
  trigger: Trigger,
): Promise<Outcome<Schedule>> {
  return mutate(ctx, trigger, async (unit) => {
    const { schedule, subscription } = await activeSchedule(unit, id, 'release');
    const after = await release(unit, schedule, subscription, {
      at: nowSeconds(),
      preserveCancelDate,
    });
    await update(unit, subscription, after);
    return (await unit.docs.require<Schedule>('subscription_schedule', id)).data;
  });
}

/** Cancels the schedule and its subscription now (subscription_schedule.canceled, ...deleted). */
export function cancelSchedule(
  ctx: SimContext,
  id: string,
  trigger: Trigger,
): Promise<Outcome<Schedule>> {
  return mutate(ctx, trigger, async (unit) => {
    const { subscription } = await activeSchedule(unit, id, 'cancel');
    await cancelLocked(unit, subscription);
    return (await unit.docs.require<Schedule>('subscription_schedule', id)).data;
  });
}
