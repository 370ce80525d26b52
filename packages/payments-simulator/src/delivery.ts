// At-least-once webhook delivery. Each event is POSTed as JSON, signed as Stripe signs, to
// webhookUrl(); anything but a 2xx within the timeout is retried with the backoff delays (the
// last one repeating) until 3 days have passed, as Stripe does. The events of one change are sent
// one after another, in order. State lives in sim_events (`next_attempt_at`, in milliseconds, is
// when an undelivered event may be sent next): on PostgreSQL, pending deliveries resume after a
// restart. While webhookUrl() is null, events wait.
import type { SqlClient } from './sql-client.ts';
import type { EventRef } from './events.ts';
import { postEvent } from './webhook-request.ts';

export type Log = (message: string, fields?: object) => void;

export interface DeliveryOptions {
  db: SqlClient;
  webhookUrl: () => string | null;
  secret: string;
  /**
   * The body and signing secret of a delivery, from the stored event (thin payloads: settings.ts);
   * by default the event itself, signed with `secret`.
   */
  render?: (event: string) => { body: string; secret: string };
  retryDelaysMs: readonly number[];
  log: Log;
  timeoutMs?: number;
  /** How often to look again while the webhook URL is not known yet. */
  pollMs?: number;
}

export interface Delivery {
  /** How long a new event is left to the code that emitted it before the retry timer may send it. */
  readonly leaseMs: number;
  /** Sends these events now, in order; resolves once each had its attempt. */
  dispatch(events: readonly EventRef[]): Promise<void>;
  /**
   * Sends an event again now, delivered or not, with the same id (the dashboard's "Resend", as
   * `stripe events resend`); resolves with the endpoint's answer ("200 {...}"), null if none yet.
   */
  resend(eventId: string): Promise<string | null>;
  start(): Promise<void>;
  close(): Promise<void>;
}

const GIVE_UP_AFTER_MS = 3 * 86_400_000;
const BATCH = 50;
const LEASE_MS = 60_000;

interface UndeliveredEvent {
  /** The stored event JSON. */
  data: string;
  type: string;
  attempts: number;
  /** Unix seconds. */
  created: number;
}

export function createDelivery(options: DeliveryOptions): Delivery {
  return new WebhookDelivery(options);
}

class WebhookDelivery implements Delivery {
  readonly leaseMs = LEASE_MS;
  private readonly timeoutMs: number;
  private readonly pollMs: number;
  private readonly delays: readonly number[];
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly stopping = new AbortController();
  private closed = false;
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Infinity;
  private scanning: Promise<void> | null = null;
  private scanAgain = false;

  constructor(private readonly options: DeliveryOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.pollMs = options.pollMs ?? 500;
    this.delays = options.retryDelaysMs.length > 0 ? options.retryDelaysMs : [1000];
  }

  async dispatch(events: readonly EventRef[]): Promise<void> {
    for (const event of events) {
      if (this.closed) return;
      await this.deliver(event.id);
    }
  }

  async resend(eventId: string): Promise<string | null> {
    await this.options.db.query(
      'UPDATE sim_events SET delivered_at = NULL, next_attempt_at = $2 WHERE id = $1',
      [eventId, Date.now()],
    );
    await this.deliver(eventId);
    const [row] = await this.options.db.query<{ last_response: string | null }>(
      'SELECT last_response FROM sim_events WHERE id = $1',
      [eventId],
    );
    return row?.last_response ?? null;
  }

  async start(): Promise<void> {
    // Whatever is pending (never sent before a stop, or waiting for a retry) goes out now.
    await this.options.db.query(
      'UPDATE sim_events SET next_attempt_at = $1 WHERE delivered_at IS NULL AND next_attempt_at > $1',
      [Date.now()],
    );
    this.scan();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.stopping.abort();
    await Promise.allSettled([...this.inFlight.values()]);
    await this.scanning;
  }

  /** Scans for due events in `ms`, unless a scan is set for sooner already. */
  private schedule(ms: number): void {
    const at = Date.now() + ms;
    if (this.closed || at >= this.timerAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.timerAt = Infinity;
        this.scan();
      },
      Math.max(0, ms),
    );
    this.timer.unref();
  }

  /** One scan at a time; a scan asked for meanwhile runs after it. */
  private scan(): void {
    if (this.closed) return;
    if (this.scanning) {
      this.scanAgain = true;
      return;
    }
    this.scanning = this.sendDue()
      .catch((error: unknown) =>
        this.options.log('payments simulator: delivery scan failed', { error: String(error) }),
      )
      .finally(() => {
        this.scanning = null;
        if (this.scanAgain) {
          this.scanAgain = false;
          this.scan();
        }
      });
  }

  /** Sends what is due, then schedules the next scan for when the next event is due. */
  private async sendDue(): Promise<void> {
    const { db } = this.options;
    if (this.options.webhookUrl() === null) {
      const waiting = await db.query(
        'SELECT 1 FROM sim_events WHERE delivered_at IS NULL AND next_attempt_at IS NOT NULL LIMIT 1',
      );
      if (waiting.length > 0) this.schedule(this.pollMs);
      return;
    }
    const due = await db.query<{ id: string }>(
      'SELECT id FROM sim_events WHERE delivered_at IS NULL AND next_attempt_at <= $1 ORDER BY seq LIMIT $2',
      [Date.now(), BATCH],
    );
    for (const { id } of due) {
      if (this.closed) return;
      await this.deliver(id, true);
    }
    if (due.length === BATCH) return this.schedule(0);
    const [next] = await db.query<{ at: number | null }>(
      'SELECT min(next_attempt_at)::float8 AS at FROM sim_events WHERE delivered_at IS NULL',
    );
    if (next?.at != null) this.schedule(next.at - Date.now());
  }

  /** An attempt at the event, or the one already under way: one at a time per event. */
  private deliver(id: string, foundByScan = false): Promise<void> {
    const running = this.inFlight.get(id);
    if (running) return running;
    const work = this.attempt(id, foundByScan)
      .catch((error: unknown) =>
        this.options.log('payments simulator: webhook delivery error', {
          event: id,
          error: String(error),
        }),
      )
      .finally(() => this.inFlight.delete(id));
    this.inFlight.set(id, work);
    return work;
  }

  private async attempt(id: string, foundByScan: boolean): Promise<void> {
    const { db } = this.options;
    if (foundByScan && !(await this.lease(id))) return;
    const url = this.options.webhookUrl();
    if (url === null) {
      await db.query(
        'UPDATE sim_events SET next_attempt_at = LEAST(next_attempt_at, $2) WHERE id = $1 AND delivered_at IS NULL',
        [id, Date.now()],
      );
      this.schedule(this.pollMs);
      return;
    }
    const [event] = await db.query<UndeliveredEvent>(
      'SELECT data, type, attempts, created::float8 AS created FROM sim_events WHERE id = $1 AND delivered_at IS NULL',
      [id],
    );
    if (!event) return;
    const { body, secret } = this.options.render?.(event.data) ?? {
      body: event.data,
      secret: this.options.secret,
    };
    const signal = AbortSignal.any([this.stopping.signal, AbortSignal.timeout(this.timeoutMs)]);
    const result = await postEvent({ url, body, secret, signal });
    // Cut off by close(): not an attempt; it is sent again after a restart.
    if (result === null || this.closed) return;
    if (result.ok) await this.recordDelivered(id, event, result.detail);
    else await this.recordFailed(id, event, result.detail);
  }

  /**
   * Takes an event the scan found due for LEASE_MS, so that a second simulator on the same
   * database (a misconfiguration) cannot send it at the same time; false when it is not due now.
   */
  private async lease(id: string): Promise<boolean> {
    const now = Date.now();
    const taken = await this.options.db.query(
      'UPDATE sim_events SET next_attempt_at = $3 WHERE id = $1 AND delivered_at IS NULL AND next_attempt_at <= $2 RETURNING id',
      [id, now, now + LEASE_MS],
    );
    return taken.length > 0;
  }

  private async recordDelivered(
    id: string,
    event: UndeliveredEvent,
    response: string,
  ): Promise<void> {
    const attempts = event.attempts + 1;
    await this.options.db.query(
      'UPDATE sim_events SET delivered_at = $2, attempts = $3, next_attempt_at = NULL, last_response = $4 WHERE id = $1',
      [id, Date.now(), attempts, response],
    );
    this.options.log('payments simulator: webhook delivered', {
      event: id,
      type: event.type,
      attempt: attempts,
      response,
    });
  }

  /** Schedules the retry after the backoff delay, or gives up once 3 days have passed. */
  private async recordFailed(id: string, event: UndeliveredEvent, response: string): Promise<void> {
    const attempts = event.attempts + 1;
    const delay = this.delays[Math.min(attempts - 1, this.delays.length - 1)]!;
    const giveUp = Date.now() + delay - event.created * 1000 > GIVE_UP_AFTER_MS;
    await this.options.db.query(
      'UPDATE sim_events SET attempts = $2, next_attempt_at = $3, last_response = $4 WHERE id = $1',
      [id, attempts, giveUp ? null : Date.now() + delay, response],
    );
    this.options.log(`payments simulator: webhook delivery failed${giveUp ? ', giving up' : ''}`, {
      event: id,
      type: event.type,
      attempt: attempts,
      response,
      retryInMs: giveUp ? null : delay,
    });
    if (!giveUp) this.schedule(delay);
  }
}
