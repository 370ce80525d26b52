// The seat engine: brings each organisation's subscription quantity at the provider to the desired
// one, outside any request. Whatever may move the quantity (a new or returning member, a report, a
// lapse, the subscription itself changing) only marks the organisation in the database; every
// instance runs this worker, which takes marked organisations under a lease of each (the database
// decides, so one provider call is in flight per organisation across all instances), waits for a
// burst to settle (the latest count wins; a burst however long costs two pushes), and pushes the
// quantity (seat-push.ts). A push that fails is tried again after a backoff; a quantity changed at
// the provider behind our back (found by a webhook or the reconciliation) marks the organisation,
// and is pushed back under a new revision.
import type { Metrics } from '../ports/metrics.ts';
import type { SeatWork } from '../ports/seats.ts';
import { NO_TRACING, type SpanNotes, type Tracing } from '../ports/tracing.ts';
import { doubling, waitAfter, type Backoff } from '../schedule/backoff.ts';
import { messageOf, PollingLoop } from '../schedule/polling-loop.ts';
import { pushSeats, type SeatPushDeps } from './seat-push.ts';

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

/** A failed push waits 2^failures seconds, at most 5 minutes, unless the provider says how long. */
const PUSH_BACKOFF: Backoff = {
  waitsMs: doubling(1_000, 300_000),
  jitter: { least: -0.2, most: 0.2 },
};
/** Each look's wait is up to a fifth longer or shorter, so instances do not look in step. */
const LOOK_JITTER = { least: -0.2, most: 0.2 };

export interface SeatSyncDeps extends SeatPushDeps {
  metrics: Pick<Metrics, 'seatUpdate' | 'seatsOutOfSync'>;
  timing?: Partial<SeatSyncTiming>;
  /** Each organisation's sync a span of its own. */
  tracing?: Tracing;
}

export class SeatSync {
  private readonly timing: SeatSyncTiming;
  private readonly loop: PollingLoop;

  constructor(private readonly deps: SeatSyncDeps) {
    this.timing = { ...SEAT_SYNC_TIMING, ...deps.timing };
    const { everyMs, batch } = this.timing;
    this.loop = new PollingLoop({
      name: 'seat sync',
      log: deps.log,
      firstMs: everyMs,
      everyMs,
      jitter: LOOK_JITTER,
      // After a full batch, more may be waiting: the next look at once.
      pass: async () => (await this.look()) === batch,
    });
  }

  start(): void {
    this.loop.start();
  }

  /** No more looks; a push in flight finishes (its lease is given up). */
  stop(): Promise<void> {
    return this.loop.stop();
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

  /** One organisation, under its lease: pushed if needed, then the lease given up. */
  private settle(work: SeatWork): Promise<void> {
    const attributes = { 'billing.organization.id': work.organizationId };
    const tracing = this.deps.tracing ?? NO_TRACING;
    return tracing.inSpan('seat sync', { attributes }, (span) => this.settleIn(work, span));
  }

  private async settleIn(work: SeatWork, span: SpanNotes): Promise<void> {
    const { store, holder, log, metrics } = this.deps;
    try {
      const pushed = await pushSeats(this.deps, work.organizationId);
      span.set({ 'billing.seats.outcome': pushed ? 'pushed' : 'in step' });
      const outcome = { done: true as const, changes: work.changes, pushed };
      await store.seats.release(work.organizationId, holder, outcome);
    } catch (error) {
      span.set({ 'billing.seats.outcome': 'failed' });
      span.failed(error);
      metrics.seatUpdate('failed');
      const retryAfterMs = waitAfter(PUSH_BACKOFF, work.failures + 1, error);
      log.warn(
        { organization: work.organizationId, err: messageOf(error), retryAfterMs },
        'seat sync: the quantity could not be pushed; trying again later',
      );
      await store.seats.release(work.organizationId, holder, { done: false, retryAfterMs });
    }
  }
}
