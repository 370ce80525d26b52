// Subscription schedules at work, each step storing the schedule with its event and handing back
// the subscription as the step leaves it, for the caller to store (with one
// customer.subscription.updated, whatever else changed with it):
// - attached (subscription_schedule.created; the subscription gets `schedule`);
// - at a period boundary (the dashboard's Renew / End period), moved to the phase starting there:
//   the subscription takes the phase's price and quantity (subscription_schedule.updated), and when
//   that is the last phase of a schedule that releases, released at once (...released): the
//   simulator does not keep a schedule whose only remaining phase is the subscription as it is,
//   where Stripe would release it once that phase ends (the state of the subscription is the same);
// - released by a request (...released; `schedule` null, `released_subscription` set);
// - ended with its subscription: canceled (...canceled) or completed (...completed).
// A phase boundary inside a period takes effect at the next boundary: the simulator's clock moves
// one period at a time.
import type Stripe from 'stripe';
import type { Unit } from './context.ts';
import { previousAttributes } from './events.ts';
import { planOf } from './objects/catalog.ts';
import {
  buildSchedule,
  currentPhaseOf,
  ended,
  phaseItem,
  released,
  type Phase,
  type Schedule,
} from './objects/schedules.ts';
import { itemOf, scheduleIdOf } from './objects/subscriptions.ts';
import type { Documents } from './store.ts';

type Subscription = Stripe.Subscription;

/** The subscription's schedule while it manages it, locked; null when none does. */
export async function scheduleOf(
  docs: Documents,
  subscription: Subscription,
): Promise<Schedule | null> {
  const id = scheduleIdOf(subscription);
  if (id === null) return null;
  const found = await docs.get<Schedule>('subscription_schedule', id, { lock: true });
  return found !== null && found.data.status === 'active' ? found.data : null;
}

async function store(
  unit: Unit,
  type: `subscription_schedule.${'created' | 'updated' | 'released' | 'canceled' | 'completed'}`,
  before: Schedule | null,
  after: Schedule,
): Promise<void> {
  await unit.docs.save('subscription_schedule', after);
  await unit.emit(type, after, before === null ? undefined : previousAttributes(before, after));
}

/** A new schedule of `phases` managing `subscription` (its first phase the current one). */
export async function attach(
  unit: Unit,
  subscription: Subscription,
  phases: Phase[],
  { at, metadata = {} }: { at: number; metadata?: Stripe.Metadata },
): Promise<{ schedule: Schedule; subscription: Subscription }> {
  const schedule = { ...buildSchedule(subscription, phases, at), metadata };
  await store(unit, 'subscription_schedule.created', null, schedule);
  return { schedule, subscription: { ...subscription, schedule: schedule.id } };
}

/** A change of the schedule's own fields (phases, end_behavior, metadata), stored with its event. */
export async function change(unit: Unit, before: Schedule, after: Schedule): Promise<void> {
  if (previousAttributes(before, after) !== undefined)
    await store(unit, 'subscription_schedule.updated', before, after);
}

/**
 * Released at `at`: the subscription no longer has a schedule, and loses the cancellation an
 * `end_behavior=cancel` schedule set unless `preserveCancelDate`.
 */
export async function release(
  unit: Unit,
  schedule: Schedule,
  subscription: Subscription,
  { at, preserveCancelDate = false }: { at: number; preserveCancelDate?: boolean },
): Promise<Subscription> {
  await store(unit, 'subscription_schedule.released', schedule, released(schedule, at));
  const dropsCancel = schedule.end_behavior === 'cancel' && !preserveCancelDate;
  return { ...subscription, schedule: null, ...(dropsCancel && { cancel_at: null }) };
}

/** Ended with its subscription: canceled, or completed (its last phase over). */
export async function endWith(
  unit: Unit,
  schedule: Schedule,
  status: 'canceled' | 'completed',
  at: number,
): Promise<void> {
  await store(unit, `subscription_schedule.${status}`, schedule, ended(schedule, status, at));
}

/** `subscription` with its item set to the phase's price and quantity. */
export async function withPhaseItem(
  docs: Documents,
  subscription: Subscription,
  phase: Phase,
): Promise<Subscription> {
  const { price: id, quantity } = phaseItem(phase);
  const item = itemOf(subscription);
  if (item.price.id === id && item.quantity === quantity) return subscription;
  const price = (await docs.require<Stripe.Price>('price', id)).data;
  const changed = { ...item, price, plan: planOf(price), quantity };
  return { ...subscription, items: { ...subscription.items, data: [changed] } };
}

/**
 * The subscription at the period boundary `at` (its current period's end): on the price of the
 * phase that starts there, released when its schedule has no phase after that one.
 */
export async function enterPhaseAt(
  unit: Unit,
  subscription: Subscription,
  at: number,
): Promise<Subscription> {
  const schedule = await scheduleOf(unit.docs, subscription);
  if (schedule === null) return subscription;
  const phase = schedule.phases.find((each) => each.start_date <= at && at < each.end_date);
  let moved = schedule;
  let entered = subscription;
  if (phase !== undefined && phase.start_date !== schedule.current_phase?.start_date) {
    moved = { ...schedule, current_phase: currentPhaseOf(phase) };
    await change(unit, schedule, moved);
    entered = await withPhaseItem(unit.docs, subscription, phase);
  }
  const lastStarted = phase === undefined || phase === schedule.phases.at(-1);
  return schedule.end_behavior === 'release' && lastStarted
    ? release(unit, moved, entered, { at })
    : entered;
}

/** A change the subscription's schedule makes when its current period ends. */
export interface PendingChange {
  price: Stripe.Price;
  quantity: number;
  at: number;
}

/** The change the schedule managing the subscription makes at the period's end; null if none. */
export async function pendingChangeOf(
  docs: Documents,
  subscription: Subscription,
): Promise<PendingChange | null> {
  const id = scheduleIdOf(subscription);
  const schedule =
    id === null ? null : (await docs.get<Schedule>('subscription_schedule', id))?.data;
  if (schedule?.status !== 'active') return null;
  const at = itemOf(subscription).current_period_end;
  const next = schedule.phases.find((phase) => phase.start_date === at);
  if (next === undefined) return null;
  const { price, quantity } = phaseItem(next);
  const item = itemOf(subscription);
  if (price === item.price.id && quantity === item.quantity) return null;
  return { price: (await docs.require<Stripe.Price>('price', price)).data, quantity, at };
}
