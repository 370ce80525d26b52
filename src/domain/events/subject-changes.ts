// What the application is told, decided where a subject's subscription or its pending change is
// written, in the same transaction: a rollback tells nothing, and a redelivered provider event
// finds nothing new to tell. A write compares what the subject would be told with what it was
// last told (announced_subjects, locked meanwhile, so changes of one subject are told one at a time,
// in order) and writes the events of the difference. Most provider events change nothing a
// subject is told (a renewal, a new period): that is decided from the row the write had in hand,
// before and after, with nothing more read. The clock (tier-clock.ts) tells the changes that time
// makes with no write.
import type { PendingChange, SubscriptionState } from '../model/subscriptions.ts';
import type { SubjectRef } from '../model/callers.ts';
import type { Announced } from '../ports/outbox.ts';
import type { EventDraft } from './app-events.ts';
import type { Repositories } from '../ports/store.ts';
import { FREE_TIER, isLive, tierOf, tierOfPrice, type TierPolicy } from '../billing/tier.ts';
import { draftEvent, type EventSubject, type ScheduledChange } from './app-events.ts';
import { tierReason, type TierCause } from './tier-reason.ts';

/** The tier policy, with the interval BILLING_PRICES gives each price, for `change.scheduled`. */
export interface EventPolicy extends TierPolicy {
  intervalByPrice: ReadonlyMap<string, 'month' | 'year'>;
}

/** What telling a change needs beside the transaction. */
export interface Telling {
  policy: EventPolicy;
  /** Why every tier the transaction changes changed; null: the state says why (a provider event). */
  cause: TierCause | null;
  now: Date;
}

/** A subscription as the statement that wrote it found it (null: stored now for the first time), and as it left it. */
export interface SubscriptionWrite {
  before: SubscriptionState | null;
  after: Written;
}

type Written = Omit<SubscriptionState, 'revision'>;

/**
 * After a write of a subscription: tells its subject what changed. A write that leaves the tier,
 * seats, failure and liveness of the subscription as they were changes nothing the subject is
 * told, whether or not this subscription decides its tier (which subscription decides turns on
 * liveness and creation only), and reads nothing more.
 */
export async function tellSubscriptionWritten(
  tx: Repositories,
  write: SubscriptionWrite,
  telling: Telling,
): Promise<void> {
  const { before, after } = write;
  if (before !== null && sameToTell(before, after, telling)) return;
  await announceChanges(tx, after.owner, { ...telling, written: write });
}

/**
 * After a write of a subscription's pending change: tells `owner`, who pays for it, what changed
 * (null: nothing written, or no such subscription stored).
 */
export async function tellPendingChangeWritten(
  tx: Repositories,
  owner: SubjectRef | null,
  telling: Telling,
): Promise<void> {
  if (owner !== null) await announceChanges(tx, owner, { ...telling, written: null });
}

function sameToTell(a: Written, b: Written, telling: Telling): boolean {
  const [was, is] = [a, b].map((s) => presentState(s.owner, s, null, telling));
  return isLive(a.status) === isLive(b.status) && sameAnnounced(was!, is!);
}

export interface Look extends Telling {
  /**
   * The subscription write that made the change; null: none (the clock's look, a pending change).
   * For a subject never told its tier (billed before an upgrade recorded what it is told), the
   * state before the write is the start of the change to tell, where the written subscription
   * decides the tier; elsewhere what the subject is now is recorded without an event.
   */
  written: SubscriptionWrite | null;
}

/** What a subject is now, as the application would be told it. */
function presentState(
  subject: SubjectRef,
  deciding: Written | null,
  pendingChange: PendingChange | null,
  look: Pick<Look, 'policy' | 'now'>,
): Announced {
  const live = deciding !== null && isLive(deciding.status);
  return {
    tier: tierOf(deciding, look.policy, look.now),
    seats: subject.type === 'organization' && live ? deciding.quantity : null,
    paymentFailedAt: deciding?.status === 'past_due' ? deciding.paymentFailedAt : null,
    pendingChange: live ? pendingChange : null,
  };
}

/** A subject with nothing: free, no seats, no failure, no change ahead. */
const NOTHING: Announced = {
  tier: FREE_TIER,
  seats: null,
  paymentFailedAt: null,
  pendingChange: null,
};

/** The subject as events name it, the subscription deciding its tier, and what it is now. */
async function lookUp(tx: Repositories, ref: SubjectRef, look: Pick<Look, 'policy' | 'now'>) {
  const account =
    ref.type === 'user' ? await tx.users.findById(ref.id) : await tx.organizations.findById(ref.id);
  if (account === null) return { subject: null, deciding: null, pending: null, now: NOTHING };
  const deciding = account.subscription;
  const pending = deciding === null ? null : await tx.pendingChanges.of(deciding.id);
  const subject: EventSubject = {
    type: ref.type,
    id: ref.id,
    idp_id: 'idpId' in account ? account.idpId : account.idpOrgId,
  };
  return { subject, deciding, pending, now: presentState(ref, deciding, pending, look) };
}

const sameTime = (a: Date | null, b: Date | null) => a?.getTime() === b?.getTime();

const samePending = (a: PendingChange | null, b: PendingChange | null) =>
  a?.priceId === b?.priceId && sameTime(a?.effectiveAt ?? null, b?.effectiveAt ?? null);

const scheduledChange = (
  { priceId, effectiveAt }: PendingChange,
  policy: EventPolicy,
): ScheduledChange => ({
  plan: tierOfPrice(priceId, policy),
  interval: policy.intervalByPrice.get(priceId) ?? null,
  effective_at: effectiveAt,
});

/** The events that tell the change from `before` to `now`. */
function draftChanges(
  subject: EventSubject,
  before: Announced,
  now: Announced,
  deciding: SubscriptionState | null,
  look: Look,
): EventDraft[] {
  const events: EventDraft[] = [];
  const event = (e: Parameters<typeof draftEvent>[1]) =>
    events.push(draftEvent(subject, e, look.now));
  if (now.paymentFailedAt !== null && !sameTime(now.paymentFailedAt, before.paymentFailedAt))
    event({
      type: 'payment.failed',
      data: { grace_until: graceUntil(now.paymentFailedAt, look.policy) },
    });
  if (now.tier !== before.tier) {
    const { written } = look;
    const decidingWritten = written !== null && written.after.id === deciding?.id;
    const step = {
      from: before.tier!,
      to: now.tier!,
      deciding,
      firstStored: written !== null && written.before === null,
      wasTrialing: decidingWritten && written.before?.status === 'trialing',
    };
    event({
      type: 'tier.changed',
      data: { from: step.from, to: step.to, reason: tierReason(step, look.cause, look.now) },
    });
  }
  if (now.seats !== null && before.seats !== null && now.seats !== before.seats)
    event({ type: 'seats.changed', data: { from: before.seats, to: now.seats } });
  if (now.pendingChange !== null && !samePending(now.pendingChange, before.pendingChange))
    event({
      type: 'change.scheduled',
      data: { pending_change: scheduledChange(now.pendingChange, look.policy) },
    });
  return events;
}

/**
 * Compares the subject's present state with what it was last told (under that record's lock, so
 * changes of one subject are told one at a time, in order) and writes the events of the
 * difference. Exported for the clock that finds the changes no write makes (events/tier-clock.ts).
 */
export async function announceChanges(
  tx: Repositories,
  ref: SubjectRef,
  look: Look,
): Promise<void> {
  const told = await tx.outbox.lockOrCreateAnnounced(ref);
  const { subject, deciding, pending, now } = await lookUp(tx, ref, look);
  if (subject === null) return;
  const before = told.tier !== null ? told : untoldBefore(ref, deciding, pending, look);
  const events = before === null ? [] : draftChanges(subject, before, now, deciding, look);
  if (!sameAnnounced(now, told)) await tx.outbox.announce(ref, now, events, look.now);
}

/** What a subject never told was before the write, where that write decides it now; else null. */
function untoldBefore(
  ref: SubjectRef,
  deciding: SubscriptionState | null,
  pending: PendingChange | null,
  { written, ...look }: Look,
): Announced | null {
  if (written === null || deciding?.id !== written.after.id) return null;
  return written.before === null ? NOTHING : presentState(ref, written.before, pending, look);
}

const sameAnnounced = (a: Announced, b: Announced) =>
  a.tier === b.tier &&
  a.seats === b.seats &&
  sameTime(a.paymentFailedAt, b.paymentFailedAt) &&
  samePending(a.pendingChange, b.pendingChange);

const graceUntil = (failedAt: Date, policy: TierPolicy) =>
  new Date(failedAt.getTime() + policy.graceDays * 86_400_000);
