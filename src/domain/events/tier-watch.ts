// One place finds every change the application must be told of: each transaction that writes a
// subscription or its pending change runs through this watch, which notes the subjects it wrote
// (written-subjects.ts) and, before the commit, compares what each one's tier (by the one tier
// function), seats, payment failure and scheduled change are now with what it was last told. A
// difference becomes events, in the same transaction: a rollback sends nothing, and a redelivered
// provider event finds nothing new to tell.
import type { PendingChange, SubjectRef, SubscriptionState } from '../model.ts';
import type { Announced, EventDraft, OutboxRepository } from '../ports/outbox.ts';
import type { Repositories } from '../ports/store.ts';
import { FREE_TIER, isLive, tierOf, tierOfPrice, type TierPolicy } from '../billing/tier.ts';
import { draftEvent, type EventSubject, type ScheduledChange } from './event-body.ts';
import { tierReason, type TierCause } from './tier-reason.ts';
import { keyOf, watchedRepositories, Written } from './written-subjects.ts';

/** The tier policy, with the interval BILLING_PRICES gives each price, for `change.scheduled`. */
export interface EventPolicy extends TierPolicy {
  intervalByPrice: ReadonlyMap<string, 'month' | 'year'>;
}

/** Runs a transaction's work on repositories it watches, and records what it saw before the commit. */
export type TransactionWatch = <T>(
  tx: Repositories,
  work: (tx: Repositories) => Promise<T>,
  cause: TierCause | null,
) => Promise<T>;

/** The outbox of a transaction whose events go nowhere. */
const NOWHERE: OutboxRepository = {
  lockOrCreateAnnounced: async () => ({ ...NOTHING, tier: null }),
  wasTold: async () => true,
  subscriptionOwner: async () => null,
  announce: async () => {},
  append: async () => {},
};

/** No destination for events: nothing watched, nothing recorded. */
export const unwatched: TransactionWatch = (tx, work) => work({ ...tx, outbox: NOWHERE });

export function tierWatch(policy: EventPolicy, clock = () => new Date()): TransactionWatch {
  return async (tx, work, cause) => {
    const written = new Written();
    const readNow = async (ref: SubjectRef) =>
      (await lookUp(tx, ref, { policy, now: clock() })).now;
    const result = await work(watchedRepositories(tx, written, readNow));
    // Locked in one order, so two transactions writing the same subjects never wait on each other.
    const subjects = [...written.subjects.values()].sort((a, b) =>
      keyOf(a.ref).localeCompare(keyOf(b.ref)),
    );
    for (const { ref, firstStored } of subjects) {
      const untoldBefore = written.untoldBefore.get(keyOf(ref)) ?? null;
      await announceChanges(tx, ref, { policy, cause, firstStored, untoldBefore, now: clock() });
    }
    return result;
  };
}

export interface Look {
  policy: EventPolicy;
  cause: TierCause | null;
  /** The deciding subscription was stored for the first time now (a checkout, not a resumption). */
  firstStored: boolean;
  /**
   * For a subject never told its tier: what it was before this transaction wrote it, the start of
   * the change to tell. Null: nothing written (the clock's look), so what it is now is recorded
   * without an event.
   */
  untoldBefore: Announced | null;
  now: Date;
}

/** What a subject is now, as the application would be told it. */
function presentState(
  subject: SubjectRef,
  deciding: SubscriptionState | null,
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
  if (account === null) return { subject: null, deciding: null, now: NOTHING };
  const deciding = account.subscription;
  const pending = deciding === null ? null : await tx.pendingChanges.of(deciding.id);
  const subject: EventSubject = {
    type: ref.type,
    id: ref.id,
    idp_id: 'idpId' in account ? account.idpId : account.idpOrgId,
  };
  return { subject, deciding, now: presentState(ref, deciding, pending, look) };
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
  effective_at: effectiveAt.toISOString(),
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
      data: { grace_until: graceUntil(now.paymentFailedAt, look.policy).toISOString() },
    });
  if (now.tier !== before.tier) {
    const step = { from: before.tier!, to: now.tier!, deciding, firstStored: look.firstStored };
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
  const { subject, deciding, now } = await lookUp(tx, ref, look);
  if (subject === null) return;
  const before = told.tier !== null ? told : look.untoldBefore;
  const events = before === null ? [] : draftChanges(subject, before, now, deciding, look);
  const changed =
    now.tier !== told.tier ||
    now.seats !== told.seats ||
    !sameTime(now.paymentFailedAt, told.paymentFailedAt) ||
    !samePending(now.pendingChange, told.pendingChange);
  if (changed) await tx.outbox.announce(ref, now, events, look.now);
}

const graceUntil = (failedAt: Date, policy: TierPolicy) =>
  new Date(failedAt.getTime() + policy.graceDays * 86_400_000);
