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
import { watchedRepositories, Written } from './written-subjects.ts';

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
  lockAnnounced: async () => null,
  ownerOf: async () => null,
  announce: async () => {},
  append: async () => {},
};

/** No destination for events: nothing watched, nothing recorded. */
export const unwatched: TransactionWatch = (tx, work) => work({ ...tx, outbox: NOWHERE });

export function tierWatch(policy: EventPolicy, clock = () => new Date()): TransactionWatch {
  return async (tx, work, cause) => {
    const written = new Written();
    const result = await work(watchedRepositories(tx, written));
    for (const id of written.byId) {
      const owner = await tx.outbox.ownerOf(id);
      if (owner !== null) written.add(owner, false);
    }
    // Locked in one order, so two transactions writing the same subjects never wait on each other.
    const subjects = [...written.subjects.values()].sort((a, b) =>
      `${a.ref.type}:${a.ref.id}`.localeCompare(`${b.ref.type}:${b.ref.id}`),
    );
    for (const { ref, firstStored } of subjects)
      await announceChanges(tx, ref, { policy, cause, firstStored, now: clock() });
    return result;
  };
}

export interface Look {
  policy: EventPolicy;
  cause: TierCause | null;
  /** The deciding subscription was stored for the first time now (a checkout, not a resumption). */
  firstStored: boolean;
  now: Date;
}

/** What a subject is now, as the application would be told it. */
function presentState(
  subject: SubjectRef,
  deciding: SubscriptionState | null,
  pendingChange: PendingChange | null,
  look: Look,
): Announced {
  const live = deciding !== null && isLive(deciding.status);
  return {
    tier: tierOf(deciding, look.policy, look.now),
    seats: subject.type === 'organization' && live ? deciding.quantity : null,
    paymentFailedAt: deciding?.status === 'past_due' ? deciding.paymentFailedAt : null,
    pendingChange: live ? pendingChange : null,
  };
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
  const told = await tx.outbox.lockAnnounced(ref);
  const account =
    ref.type === 'user' ? await tx.users.findById(ref.id) : await tx.organizations.findById(ref.id);
  if (account === null) return;
  const deciding = account.subscription;
  const pending = deciding === null ? null : await tx.pendingChanges.of(deciding.id);
  const now = presentState(ref, deciding, pending, look);
  const subject: EventSubject = {
    type: ref.type,
    id: ref.id,
    idp_id: 'idpId' in account ? account.idpId : account.idpOrgId,
  };
  // Never told (a subject billed before events were recorded): what it is now, without an event.
  const events: EventDraft[] = [];
  const event = (e: Parameters<typeof draftEvent>[1]) =>
    events.push(draftEvent(subject, e, look.now));
  const before =
    told === null
      ? { tier: FREE_TIER, seats: null, paymentFailedAt: null, pendingChange: null }
      : told;
  if (before.tier !== null) {
    if (now.paymentFailedAt !== null && !sameTime(now.paymentFailedAt, before.paymentFailedAt))
      event({
        type: 'payment.failed',
        data: { grace_until: graceUntil(now.paymentFailedAt, look.policy).toISOString() },
      });
    if (now.tier !== before.tier) {
      const step = { from: before.tier, to: now.tier!, deciding, firstStored: look.firstStored };
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
  }
  const changed =
    told === null ||
    now.tier !== told.tier ||
    now.seats !== told.seats ||
    !sameTime(now.paymentFailedAt, told.paymentFailedAt) ||
    !samePending(now.pendingChange, told.pendingChange);
  if (changed) await tx.outbox.announce(ref, now, events, look.now);
}

const graceUntil = (failedAt: Date, policy: TierPolicy) =>
  new Date(failedAt.getTime() + policy.graceDays * 86_400_000);
