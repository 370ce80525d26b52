// Delivers the outbox on every instance: each round takes the lease of the events due (one per
// subject, the oldest; the database decides which instance gets which), sends each once, and
// records the answer. No transaction is open while a request is out. An instance that dies
// mid-attempt leaves its lease to run out; the event is then sent again with the same id and body,
// so the receiver sees it at least once and deduplicates on `webhook-id`.
import type { Logger } from '../ports/logger.ts';
import type { EventSender } from '../ports/event-sender.ts';
import type { ClaimedEvent, Outbox, OutboxCounts } from '../ports/outbox.ts';
import { afterFailure } from './backoff.ts';

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
}

export class DeliveryWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  /** Aborted when the instance closes: a request in flight is given up and tried again at once. */
  private readonly closing = new AbortController();
  private lastCount = 0;

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
  }

  /** One round: the events due now, each attempted once; resolves to how many were attempted. */
  async deliverDue(): Promise<number> {
    if (!this.deps.sender.ready()) return 0;
    const { outbox, holder } = this.deps;
    const claimed = await outbox.claim(holder, this.now(), DELIVERY_LEASE_MS, BATCH);
    await Promise.all(claimed.map((event) => this.attempt(event)));
    return claimed.length;
  }

  private async attempt(event: ClaimedEvent): Promise<void> {
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
    if (!delivered)
      this.deps.log.warn(
        { event: event.id, attempt: event.attempt, status, next: outcome },
        'outbound event not delivered',
      );
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

  /** A round, and how long to wait before the next: none after a full batch. */
  private async round(): Promise<number> {
    try {
      const attempted = await this.deliverDue();
      await this.count();
      return attempted >= BATCH ? 0 : (this.deps.pollMs ?? POLL_MS);
    } catch (error) {
      this.deps.log.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'outbound events: a round failed; the next tries again',
      );
      return this.deps.pollMs ?? POLL_MS;
    }
  }

  private async count(): Promise<void> {
    if (this.deps.onCounts === undefined || Date.now() - this.lastCount < COUNT_EVERY_MS) return;
    this.lastCount = Date.now();
    this.deps.onCounts(await this.deps.outbox.counts(this.now()));
  }
}
