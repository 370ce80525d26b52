// At-least-once webhook delivery. Each event is POSTed as JSON, signed as Stripe signs, to
// webhookUrl(); anything but a 2xx within the timeout is retried with the backoff delays (the
// last one repeating) until 3 days have passed, as Stripe does. The events of one change are sent
// one after another, in order. State lives in sim_events, so pending deliveries resume after a
// restart; while webhookUrl() is null, events wait.
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

export function createDelivery(options: DeliveryOptions): Delivery {
  const { db, log } = options;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const pollMs = options.pollMs ?? 500;
  const delays = options.retryDelaysMs.length > 0 ? options.retryDelaysMs : [1000];
  const inFlight = new Map<string, Promise<void>>();
  const stopping = new AbortController();
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  let timerAt = Infinity;
  let ticking: Promise<void> | null = null;
  let tickAgain = false;

  function schedule(ms: number): void {
    const at = Date.now() + ms;
    if (closed || at >= timerAt) return;
    if (timer) clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(
      () => {
        timer = null;
        timerAt = Infinity;
        run();
      },
      Math.max(0, ms),
    );
    timer.unref();
  }

  async function attempt(id: string, fromScan: boolean): Promise<void> {
    // Found by the retry scan: take it in the database first, so a second simulator on the same
    // database (a misconfiguration) cannot send it at the same time.
    if (fromScan) {
      const now = Date.now();
      const taken = await db.query(
        'UPDATE sim_events SET next_attempt_at = $3 WHERE id = $1 AND delivered_at IS NULL AND next_attempt_at <= $2 RETURNING id',
        [id, now, now + LEASE_MS],
      );
      if (taken.length === 0) return;
    }
    const url = options.webhookUrl();
    if (url === null) {
      await db.query(
        'UPDATE sim_events SET next_attempt_at = LEAST(next_attempt_at, $2) WHERE id = $1 AND delivered_at IS NULL',
        [id, Date.now()],
      );
      schedule(pollMs);
      return;
    }
    const [row] = await db.query<{ data: string; type: string; attempts: number; created: number }>(
      'SELECT data, type, attempts, created::float8 AS created FROM sim_events WHERE id = $1 AND delivered_at IS NULL',
      [id],
    );
    if (!row) return;
    const delivered = options.render?.(row.data) ?? { body: row.data, secret: options.secret };
    const result = await postEvent(
      url,
      delivered.body,
      delivered.secret,
      AbortSignal.any([stopping.signal, AbortSignal.timeout(timeoutMs)]),
    );
    if (result === null || closed) return; // cut off by close(): not an attempt; it is sent again after a restart
    const attempts = row.attempts + 1;
    if (result.ok) {
      await db.query(
        'UPDATE sim_events SET delivered_at = $2, attempts = $3, next_attempt_at = NULL, last_response = $4 WHERE id = $1',
        [id, Date.now(), attempts, result.detail],
      );
      log('payments simulator: webhook delivered', {
        event: id,
        type: row.type,
        attempt: attempts,
        response: result.detail,
      });
      return;
    }
    const delay = delays[Math.min(attempts - 1, delays.length - 1)]!;
    const giveUp = Date.now() + delay - row.created * 1000 > GIVE_UP_AFTER_MS;
    await db.query(
      'UPDATE sim_events SET attempts = $2, next_attempt_at = $3, last_response = $4 WHERE id = $1',
      [id, attempts, giveUp ? null : Date.now() + delay, result.detail],
    );
    log(`payments simulator: webhook delivery failed${giveUp ? ', giving up' : ''}`, {
      event: id,
      type: row.type,
      attempt: attempts,
      response: result.detail,
      retryInMs: giveUp ? null : delay,
    });
    if (!giveUp) schedule(delay);
  }

  /** One attempt per event at a time, whoever asks for it. */
  function claim(id: string, fromScan = false): Promise<void> {
    const running = inFlight.get(id);
    if (running) return running;
    const work = attempt(id, fromScan)
      .catch((error: unknown) =>
        log('payments simulator: webhook delivery error', { event: id, error: String(error) }),
      )
      .finally(() => inFlight.delete(id));
    inFlight.set(id, work);
    return work;
  }

  async function tick(): Promise<void> {
    if (options.webhookUrl() === null) {
      const pending = await db.query(
        'SELECT 1 FROM sim_events WHERE delivered_at IS NULL AND next_attempt_at IS NOT NULL LIMIT 1',
      );
      if (pending.length > 0) schedule(pollMs);
      return;
    }
    const due = await db.query<{ id: string }>(
      'SELECT id FROM sim_events WHERE delivered_at IS NULL AND next_attempt_at <= $1 ORDER BY seq LIMIT $2',
      [Date.now(), BATCH],
    );
    for (const { id } of due) {
      if (closed) return;
      await claim(id, true);
    }
    if (due.length === BATCH) return schedule(0);
    const [next] = await db.query<{ at: number | null }>(
      'SELECT min(next_attempt_at)::float8 AS at FROM sim_events WHERE delivered_at IS NULL',
    );
    if (next?.at != null) schedule(next.at - Date.now());
  }

  function run(): void {
    if (closed) return;
    if (ticking) {
      tickAgain = true;
      return;
    }
    ticking = tick()
      .catch((error: unknown) =>
        log('payments simulator: delivery scan failed', { error: String(error) }),
      )
      .finally(() => {
        ticking = null;
        if (tickAgain) {
          tickAgain = false;
          run();
        }
      });
  }

  return {
    leaseMs: LEASE_MS,
    async dispatch(events) {
      for (const event of events) {
        if (closed) return;
        await claim(event.id);
      }
    },
    async resend(eventId) {
      await db.query(
        'UPDATE sim_events SET delivered_at = NULL, next_attempt_at = $2 WHERE id = $1',
        [eventId, Date.now()],
      );
      await claim(eventId);
      const [row] = await db.query<{ last_response: string | null }>(
        'SELECT last_response FROM sim_events WHERE id = $1',
        [eventId],
      );
      return row?.last_response ?? null;
    },
    async start() {
      // Whatever is pending (never sent because the process stopped, or waiting for a retry) goes out now.
      await db.query(
        'UPDATE sim_events SET next_attempt_at = $1 WHERE delivered_at IS NULL AND next_attempt_at > $1',
        [Date.now()],
      );
      run();
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      stopping.abort();
      await Promise.allSettled([...inFlight.values()]);
      await ticking;
    },
  };
}
