// Delivers the outbox on every instance: each round takes the lease of the events due (one per
// subject, the oldest; the database decides which instance gets which), up to 20 in flight, and
// sends each once, recording the answer; a round does not wait for the attempts it started, so a
// slow receiver answer holds up its own subject only. No transaction is open while a request is
// out. An instance that dies mid-attempt leaves its lease to run out; the event is then sent again
// with the same id and body, so the receiver sees it at least once and deduplicates on
// `webhook-id`. Its rounds are a polling-loop.ts, woken when an attempt makes room.
import type { Logger } from '../ports/logger.ts';
import type { EventSender } from '../ports/event-sender.ts';
import type { ClaimedEvent, Outbox, OutboxCounts } from '../ports/outbox.ts';
import { NO_TRACING, type SpanNotes, type Tracing } from '../ports/tracing.ts';
import { messageOf, PollingLoop } from '../schedule/polling-loop.ts';
import { afterFailure } from './delivery-retries.ts';
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
  private readonly loop: PollingLoop;
  private lastCount = 0;
  /** The attempts under way, started by the rounds. */
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly deps: DeliveryWorkerDeps) {
    this.loop = new PollingLoop({
      name: 'outbound events',
      log: deps.log,
      firstMs: 0,
      everyMs: deps.pollMs ?? POLL_MS,
      pass: () => this.round(),
    });
  }

  private now(): Date {
    return this.deps.clock?.() ?? new Date();
  }

  start(): void {
    this.loop.start();
  }

  /** No more rounds; a request in flight is given up (and tried again at once by whoever is next). */
  async stop(): Promise<void> {
    await this.loop.stop();
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
        this.loop.wake(); // room for the next: a round at once, unless one is under way
      });
      this.inFlight.add(attempt);
      return attempt;
    });
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
    const { status, answer } = await this.deps.sender.send(event.id, event.body, this.loop.signal);
    const record = {
      attemptedAt,
      status,
      durationMs: Math.round(performance.now() - started),
      answer,
    };
    const delivered = status !== null && status >= 200 && status < 300;
    const outcome = delivered
      ? ({ state: 'delivered' } as const)
      : this.loop.signal.aborted
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

  /** A round; true while there was more due than room (the next comes at once). */
  private async round(): Promise<boolean> {
    const room = BATCH - this.inFlight.size;
    const started = await this.startDue(room);
    for (const attempt of started)
      attempt.catch((error: unknown) =>
        this.deps.log.warn({ err: messageOf(error) }, 'outbound events: an attempt failed'),
      );
    await this.count();
    return room > 0 && started.length >= room;
  }

  private async count(): Promise<void> {
    if (this.deps.onCounts === undefined || Date.now() - this.lastCount < COUNT_EVERY_MS) return;
    this.lastCount = Date.now();
    this.deps.onCounts(await this.deps.outbox.counts(this.now()));
  }
}
