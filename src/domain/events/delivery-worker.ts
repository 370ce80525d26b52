// Delivers the outbox on every instance: each round takes the lease of the events due (one per
// subject, the oldest; the database decides which instance gets which), up to 20 in flight, and
// sends each once, recording the answer; a round does not wait for the attempts it started, so a
// slow receiver answer holds up its own subject only. No transaction is open while a request is
// out. An instance that dies mid-attempt leaves its lease to run out; the event is then sent again
// with the same id and body, so the receiver sees it at least once and deduplicates on
// `webhook-id`.
import type { Logger } from '../ports/logger.ts';
import type { EventSender } from '../ports/event-sender.ts';
import type { ClaimedEvent, Outbox, OutboxCounts } from '../ports/outbox.ts';
import { NO_TRACING, type SpanNotes, type Tracing } from '../ports/tracing.ts';
import { afterFailure } from './backoff.ts';
import { sendNotes, sentNotes } from './send-notes.ts';

/** Longer than an attempt may take (15 s), so a live holder never loses an event it is sending. */
export const DELIVERY_LEASE_MS = 60_000;
const BATCH = 20;
const POLL_MS = 1_000;
const COUNT_EVERY_MS = 15_000;

export interface DeliveryWorkerDeps {
  outbox: Outbox;
  sender: EventSender;
  /** This instance's name in the leases. */
  holder: string;
  log: Logger;
  /** Told the outbox's counts every little while (metrics). */
  onCounts?(counts: OutboxCounts): void;
  clock?: () => Date;
  pollMs?: number;
  /**
   * Each attempt a span of its own, continuing the trace of the change the event reports; its
   * request then carries a `traceparent` of that trace.
   */
  tracing?: Tracing;
}

export class DeliveryWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  /** Aborted when the instance closes: a request in flight is given up and tried again at once. */
  private readonly closing = new AbortController();
  private lastCount = 0;
  /** The attempts under way, started by the rounds. */
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly deps: DeliveryWorkerDeps) {}

  private now(): Date {
    return this.deps.clock?.() ?? new Date();
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.closing.abort();
    if (this.timer !== null) clearTimeout(this.timer);
    await this.running;
    await Promise.allSettled(this.inFlight);
  }

  /** The events due now, each attempted once; resolves, once all are settled, to how many. */
  async deliverDue(): Promise<number> {
    const started = await this.startDue(BATCH);
    await Promise.all(started);
    return started.length;
  }

  /** Takes up to `room` events due and starts an attempt of each; the attempts. */
  private async startDue(room: number): Promise<Promise<void>[]> {
    if (!this.deps.sender.ready() || room <= 0) return [];
    const { outbox, holder } = this.deps;
    const claimed = await outbox.claim(holder, this.now(), DELIVERY_LEASE_MS, room);
    return claimed.map((event) => {
      const attempt = this.attempt(event).finally(() => {
        this.inFlight.delete(attempt);
        this.wake();
      });
      this.inFlight.add(attempt);
      return attempt;
    });
  }

  /** A finished attempt makes room: the next round at once, unless one is under way. */
  private wake(): void {
    if (this.stopped || this.running !== null) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.schedule(0);
  }

  private attempt(event: ClaimedEvent): Promise<void> {
    const options = {
      kind: 'producer' as const,
      attributes: sendNotes(event),
      parent: event.traceParent,
    };
    const tracing = this.deps.tracing ?? NO_TRACING;
    return tracing.inSpan(`send ${event.type}`, options, (span) => this.attemptIn(event, span));
  }

  private async attemptIn(event: ClaimedEvent, span: SpanNotes): Promise<void> {
    const attemptedAt = this.now();
    const started = performance.now();
    const { status, answer } = await this.deps.sender.send(
      event.id,
      event.body,
      this.closing.signal,
    );
    const record = {
      attemptedAt,
      status,
      durationMs: Math.round(performance.now() - started),
      answer,
    };
    const delivered = status !== null && status >= 200 && status < 300;
    const outcome = delivered
      ? ({ state: 'delivered' } as const)
      : this.closing.signal.aborted
        ? ({ state: 'pending', at: this.now() } as const)
        : afterFailure(event.retry, event.retryFrom, this.now());
    span.set(sentNotes(outcome));
    if (!delivered) {
      span.failed(new Error(status === null ? answer : `answered ${status}`));
      this.deps.log.warn(
        { event: event.id, attempt: event.attempt, status, next: outcome },
        'outbound event not delivered',
      );
    }
    await this.deps.outbox.settle(event.id, this.deps.holder, event.attempt, record, outcome);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.round().then((next) => {
        this.running = null;
        this.schedule(next);
      });
    }, ms);
    this.timer.unref();
  }

  /** A round, and how long to wait before the next: none while there was more due than room. */
  private async round(): Promise<number> {
    try {
      const room = BATCH - this.inFlight.size;
      const started = await this.startDue(room);
      for (const attempt of started) attempt.catch((error) => this.failed(error));
      await this.count();
      return room > 0 && started.length >= room ? 0 : (this.deps.pollMs ?? POLL_MS);
    } catch (error) {
      this.failed(error);
      return this.deps.pollMs ?? POLL_MS;
    }
  }

  private failed(error: unknown): void {
    this.deps.log.warn(
      { err: error instanceof Error ? error.message : String(error) },
      'outbound events: a round failed; the next tries again',
    );
  }

  private async count(): Promise<void> {
    if (this.deps.onCounts === undefined || Date.now() - this.lastCount < COUNT_EVERY_MS) return;
    this.lastCount = Date.now();
    this.deps.onCounts(await this.deps.outbox.counts(this.now()));
  }
}
