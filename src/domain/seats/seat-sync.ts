// The seat engine: brings each organisation's subscription quantity at the provider to the desired
// one, outside any request. Whatever may move the quantity (a new or returning member, a report, a
// lapse, the subscription itself changing) only marks the organisation in the database; every
// instance runs this worker, which takes marked organisations under a lease of each (the database
// decides, so one provider call is in flight per organisation across all instances), waits for a
// burst to settle (the latest count wins; a burst however long costs two pushes), and pushes the
// quantity with create_prorations and an idempotency key from the organisation, its subscription
// and the revision of the desired quantity:
// a revision is new for every quantity to push, so 3 -> 4 -> 3 -> 4 never reuses a key, and a
// retry of the same push (a failure, an instance killed mid-call) is the same key, one change at
// the provider. The provider's answer is applied through the webhook path's ordering; a quantity
// changed at the provider behind our back (found by a webhook or the reconciliation) marks the
// organisation, and is pushed back under a new revision.
import { applyListing } from '../billing/provider-listing.ts';
import { isLive } from '../billing/tier.ts';
import { DomainError } from '../errors.ts';
import type { Logger } from '../ports/logger.ts';
import type { Metrics } from '../ports/metrics.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { SeatWork } from '../ports/seats.ts';
import type { Store } from '../ports/store.ts';
import { NO_TRACING, type SpanNotes, type Tracing } from '../ports/tracing.ts';
import type {
  ProviderRead,
  ProviderSubscription,
  SubscriptionState,
} from '../model/subscriptions.ts';
import { saveState } from '../webhooks/subscription-sync.ts';
import type { EventPolicy } from '../events/subject-changes.ts';
import { desiredSeats, type SeatSettings } from './desired-seats.ts';

export interface SeatSyncTiming {
  /** How often each instance looks for marked organisations. */
  everyMs: number;
  /** An organisation is taken once no change came for this long... */
  quietMs: number;
  /** ...or once a change has waited this long... */
  maxWaitMs: number;
  /**
   * ...or, when changes kept coming after a push (a stream), this long: a burst however long
   * costs two pushes, one after maxWaitMs and one once it goes quiet.
   */
  streamWaitMs: number;
  /** A holder that dies is replaced after this long; far above a provider call's bound. */
  leaseMs: number;
  /** Organisations one look takes at most. */
  batch: number;
}

export const SEAT_SYNC_TIMING: SeatSyncTiming = {
  everyMs: 1_000,
  quietMs: 1_000,
  maxWaitMs: 5_000,
  streamWaitMs: 600_000,
  leaseMs: 60_000,
  batch: 10,
};

export interface SeatSyncDeps {
  store: Store;
  payments: PaymentsProvider;
  log: Logger;
  /** How the quantities it stores are told to the application. */
  policy: EventPolicy;
  metrics: Pick<Metrics, 'seatUpdate' | 'seatsOutOfSync'>;
  /** This instance's name in the leases. */
  holder: string;
  settings: SeatSettings;
  timing?: Partial<SeatSyncTiming>;
  /** Each organisation's sync a span of its own. */
  tracing?: Tracing;
}

/** A failed push waits 2^failures seconds, at most 5 minutes, unless the provider says how long. */
function backoffMs(failures: number, error: unknown): number {
  if (error instanceof DomainError && error.code === 'payments_throttled')
    return Number(error.details.retryAfterSeconds ?? 1) * 1000;
  return Math.min(300_000, 1000 * 2 ** Math.min(failures, 9)) * (0.8 + 0.4 * Math.random());
}

export class SeatSync {
  private readonly timing: SeatSyncTiming;
  private timer: NodeJS.Timeout | null = null;
  private looking: Promise<unknown> | null = null;
  private stopped = false;

  constructor(private readonly deps: SeatSyncDeps) {
    this.timing = { ...SEAT_SYNC_TIMING, ...deps.timing };
  }

  start(): void {
    this.stopped = false;
    this.next();
  }

  /** No more looks; a push in flight finishes (its lease is given up). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    await this.looking;
  }

  /** One look: takes the organisations due and brings each to its quantity; resolves to how many. */
  async look(): Promise<number> {
    const { store, holder, metrics } = this.deps;
    const { leaseMs, batch: limit, quietMs, maxWaitMs, streamWaitMs } = this.timing;
    const claim = { holder, leaseMs, limit, quietMs, maxWaitMs, streamWaitMs };
    const due = await store.seats.claim(claim);
    await Promise.all(due.map((work) => this.settle(work)));
    metrics.seatsOutOfSync(await store.seats.outOfSync());
    return due.length;
  }

  /** The next look: at once after a full batch (more may be waiting), else after `everyMs`. */
  private next(fullBatch = false): void {
    if (this.stopped) return;
    const wait = fullBatch ? 0 : this.timing.everyMs * (0.8 + 0.4 * Math.random());
    this.timer = setTimeout(() => {
      let taken = 0;
      this.looking = this.look()
        .then((count) => void (taken = count))
        .catch((error: unknown) =>
          this.deps.log.warn(
            { err: messageOf(error) },
            'seat sync: a look failed; the next one tries again',
          ),
        )
        .finally(() => {
          this.looking = null;
          this.next(taken === this.timing.batch);
        });
    }, wait);
    this.timer.unref();
  }

  /** One organisation, under its lease: pushed if needed, then the lease given up. */
  private settle(work: SeatWork): Promise<void> {
    const attributes = { 'billing.organization.id': work.organizationId };
    const tracing = this.deps.tracing ?? NO_TRACING;
    return tracing.inSpan('seat sync', { attributes }, (span) => this.settleIn(work, span));
  }

  private async settleIn(work: SeatWork, span: SpanNotes): Promise<void> {
    const { store, holder, log, metrics } = this.deps;
    try {
      const pushed = await this.push(work.organizationId);
      span.set({ 'billing.seats.outcome': pushed ? 'pushed' : 'in step' });
      const outcome = { done: true as const, changes: work.changes, pushed };
      await store.seats.release(work.organizationId, holder, outcome);
    } catch (error) {
      span.set({ 'billing.seats.outcome': 'failed' });
      span.failed(error);
      metrics.seatUpdate('failed');
      const retryAfterMs = backoffMs(work.failures, error);
      log.warn(
        { organization: work.organizationId, err: messageOf(error), retryAfterMs },
        'seat sync: the quantity could not be pushed; trying again later',
      );
      await store.seats.release(work.organizationId, holder, { done: false, retryAfterMs });
    }
  }

  /** Whether a quantity went to the provider. */
  private async push(organizationId: string): Promise<boolean> {
    const { store, holder } = this.deps;
    const subscription = await this.billedSubscription(organizationId);
    if (subscription === null) return false;
    const { quantity, pushedAlready } = await this.desired(organizationId);
    const inStep = subscription.quantity === quantity;
    // The provider differs from a quantity it accepted (changed there): a new revision, a new key.
    const revision = await store.seats.setDesired(
      organizationId,
      holder,
      quantity,
      !inStep && pushedAlready,
    );
    if (revision === null) throw new Error('the lease was lost');
    if (inStep) return false;
    const answer = await this.send(organizationId, subscription, { quantity, revision });
    if (!(await this.applyAnswer(subscription, answer)))
      await this.lookAgain(organizationId, answer);
    return true;
  }

  /** The organisation's subscription when it bills seats: none for one that is not live. */
  private async billedSubscription(
    organizationId: string,
  ): Promise<(SubscriptionState & { itemId: string }) | null> {
    const organization = await this.deps.store.organizations.findById(organizationId);
    const subscription = organization?.subscription ?? null;
    // Nothing to bill for a subscription that is not live: the next one starts from the checkout's quantity.
    if (subscription === null || !isLive(subscription.status) || subscription.itemId === null)
      return null;
    return subscription as SubscriptionState & { itemId: string };
  }

  /** The quantity wanted now, and whether the provider has accepted it already. */
  private async desired(
    organizationId: string,
  ): Promise<{ quantity: number; pushedAlready: boolean }> {
    const { store, settings } = this.deps;
    const [active, reported, target] = await Promise.all([
      store.organizations.countActiveMembers(organizationId, settings.activeDays),
      store.seats.reported(organizationId),
      store.seats.target(organizationId),
    ]);
    const quantity = desiredSeats(settings, { active, reported: reported?.count ?? null });
    const pushedAlready = target.desired === quantity && target.pushedRevision === target.revision;
    return { quantity, pushedAlready };
  }

  /** The quantity to the provider, under a key of the organisation's revision; its answer. */
  private async send(
    organizationId: string,
    subscription: SubscriptionState & { itemId: string },
    { quantity, revision }: { quantity: number; revision: number },
  ): Promise<ProviderRead<ProviderSubscription>> {
    const { store, payments, holder, log, metrics } = this.deps;
    const key = `seats:${organizationId}:${subscription.id}:${revision}`;
    const answer = await payments.updateSubscriptionQuantity(
      { subscriptionId: subscription.id, itemId: subscription.itemId, quantity },
      key,
    );
    if (answer.value.quantity !== quantity)
      throw new Error(`the provider answered quantity ${answer.value.quantity}, not ${quantity}`);
    await store.seats.pushed(organizationId, holder, revision);
    metrics.seatUpdate('sent');
    log.info(
      {
        organization: organizationId,
        subscription: subscription.id,
        from: subscription.quantity,
        to: quantity,
      },
      'seat sync: quantity pushed',
    );
    return answer;
  }

  /**
   * The provider's answer to a push replaces the state seen before sending it (pushes for one
   * organisation follow one another, so two in one second are still in order); a state another
   * writer stored meanwhile is left to the ordering. Stored as of the second before the answer's:
   * everything older is in it, and the update's own event is newer, so it applies without a read.
   * False when what is stored now bills another quantity than the answer.
   */
  private async applyAnswer(
    seen: SubscriptionState,
    answer: ProviderRead<ProviderSubscription>,
  ): Promise<boolean> {
    const { store, log, policy } = this.deps;
    const asOf = answer.readAt - 1;
    const telling = { policy, cause: null, now: new Date() };
    const replaced = await store.transaction(async (tx) => {
      const stored = await tx.subscriptions.findForUpdate(seen.id);
      if (stored?.revision !== seen.revision) return false;
      const next = { stored, next: answer.value, asOf: Math.max(asOf, stored.asOf), created: asOf };
      return (await saveState({ tx, log, telling }, next)) === 'saved';
    });
    if (replaced) return true;
    const [change] = await applyListing(
      { store, log, policy },
      { value: [answer.value], readAt: asOf },
    );
    return change?.verdict === 'repaired' || change?.before?.quantity === answer.value.quantity;
  }

  /**
   * The ordering kept a state stored meanwhile over the answer, and it bills another quantity. It
   * may still be older than the push (a read is dated when it leaves the provider, maybe a second
   * after its data), and then the push's own event is older than it too: nothing would mark the
   * organisation again. Marked, it is looked at again, and the next push's answer replaces the
   * state that push was sent after.
   */
  private async lookAgain(organizationId: string, answer: ProviderRead<ProviderSubscription>) {
    this.deps.log.warn(
      { organization: organizationId, subscription: answer.value.id },
      'seat sync: a state stored during the push bills another quantity; looking again',
    );
    await this.deps.store.seats.mark(organizationId);
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
