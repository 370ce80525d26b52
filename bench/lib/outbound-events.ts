// The outbound events (scenario `events`): a receiver in the benchmark's process stands for the
// application at APP_WEBHOOK_URL (it verifies each delivery as the application would, answers 204
// and notes when each webhook-id arrived), and the service is sent provider events that each change
// a tier, so that every one of them writes an event to the outbox. Measured: how fast the worker
// empties the outbox, the time from a change's transaction to its arrival, and that every event
// recorded arrived exactly once.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { eventBody } from './events.ts';
import {
  coresOver,
  signedEvent,
  watched,
  type BenchContext,
  type Measurement,
} from './scenarios.ts';
import type { Server } from './stack.ts';

export interface Receiver {
  url: string;
  /** APP_WEBHOOK_SECRET: `whsec_` and base64 of 32 random bytes. */
  secret: string;
  /** Arrival times (ms since the epoch) of each webhook-id, one per delivery. */
  arrivals: Map<string, number[]>;
  badSignatures(): number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const verifier = new Webhook(secret);
  const arrivals = new Map<string, number[]>();
  let bad = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = Date.now();
      const id = String(request.headers['webhook-id']);
      try {
        verifier.verify(Buffer.concat(chunks), request.headers as Record<string, string>);
      } catch {
        bad++;
      }
      arrivals.set(id, [...(arrivals.get(id) ?? []), at]);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/billing-events`,
    secret,
    arrivals,
    badSignatures: () => bad,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The newest outbound event's sequence number: the ones written later come after it. */
export async function lastOutboundSeq(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ seq: number }>(
    'SELECT coalesce(max(seq), 0)::int AS seq FROM outbound_events',
  );
  return rows[0]!.seq;
}

/** Sends the provider events, `connections` at a time: how many a second, and how many not processed. */
async function post(
  url: string,
  secret: string,
  bodies: readonly string[],
  connections: number,
): Promise<{ rps: number; failed: number }> {
  const started = performance.now();
  let next = 0;
  let failed = 0;
  const sender = async () => {
    while (next < bodies.length) {
      const event = signedEvent(secret, bodies[next++]!);
      const response = await fetch(`${url}/api/v1/webhooks/payments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [event.header[0]]: event.header[1] },
        body: event.body,
      });
      if ((await response.text()) !== '{"status":"processed"}') failed++;
    }
  };
  await Promise.all(Array.from({ length: connections }, sender));
  return { rps: bodies.length / ((performance.now() - started) / 1000), failed };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const DRAIN_TIMEOUT_MS = 120_000;

/** Waits until no event after `afterSeq` is pending; how many still were at the start. */
async function drain(ctx: BenchContext, afterSeq: number): Promise<number> {
  const pending = async () =>
    (
      await ctx.pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM outbound_events WHERE seq > $1 AND state = 'pending'",
        [afterSeq],
      )
    ).rows[0]!.n;
  const atStart = await pending();
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  while ((await pending()) > 0 && Date.now() < deadline) await sleep(100);
  return atStart;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

/**
 * `settings.outboundEvents` provider events, every one a tier change (pro and team in turn for each
 * subscription), then until the outbox is empty; `server` sends to `receiver`. Requests in the
 * row are the outbound events, its rate theirs (from the first change to the last arrival), its
 * latencies the time from an event's transaction to its arrival.
 */
export async function outboxThroughput(
  ctx: BenchContext,
  server: Server,
  receiver: Receiver,
): Promise<Measurement> {
  // An odd number of subscriptions: event n is for subscription n mod that, and takes price n mod
  // 2, so each subscription's next event has the other price.
  const count = ctx.events.userIds.length - (1 - (ctx.events.userIds.length % 2));
  const source = { ...ctx.events, userIds: ctx.events.userIds.slice(0, count) };
  const afterSeq = await lastOutboundSeq(ctx.pool);
  const bodies = Array.from({ length: ctx.settings.outboundEvents }, () =>
    eventBody(source, ctx.nextSeq++),
  );
  let intake = { rps: 0, failed: 0, backlog: 0, endedAt: 0 };
  let windowS = 0;
  const round = await watched(ctx, server.pids(), async () => {
    const started = performance.now();
    const sent = await post(server.url, source.webhookSecret, bodies, ctx.settings.connections);
    const endedAt = Date.now();
    intake = { ...sent, endedAt, backlog: await drain(ctx, afterSeq) };
    windowS = (performance.now() - started) / 1000;
    return { requests: 0, durationS: windowS, rps: 0, p50: NaN, p99: NaN, non2xx: sent.failed };
  });
  const { rows: recorded } = await ctx.pool.query<{ id: string; type: string; created: number }>(
    `SELECT id, type, (extract(epoch FROM created_at) * 1000)::float8 AS created
     FROM outbound_events WHERE seq > $1`,
    [afterSeq],
  );
  const arrivedOnce = recorded.filter((e) => receiver.arrivals.get(e.id)?.length === 1);
  const missing = recorded.filter((e) => !receiver.arrivals.has(e.id)).length;
  const doubled = recorded.length - arrivedOnce.length - missing;
  const latencies = arrivedOnce
    .map((e) => receiver.arrivals.get(e.id)![0]! - e.created)
    .sort((a, b) => a - b);
  const first = Math.min(...recorded.map((e) => e.created));
  const last = Math.max(...arrivedOnce.map((e) => receiver.arrivals.get(e.id)![0]!));
  const durationS = (last - first) / 1000;
  // Once the provider events stop, the worker alone sets the pace: its rate on the backlog left.
  const drainS = (last - intake.endedAt) / 1000;
  const tierChanges = recorded.filter((e) => e.type === 'tier.changed').length;
  const bad = receiver.badSignatures();
  const problems = [
    ...(missing > 0 ? [`${missing} events never arrived`] : []),
    ...(doubled > 0 ? [`${doubled} events arrived more than once`] : []),
    ...(bad > 0 ? [`${bad} deliveries failed verification`] : []),
    ...(intake.failed > 0 ? [`${intake.failed} provider events not processed`] : []),
  ];
  return {
    ...round,
    requests: recorded.length,
    durationS,
    rps: recorded.length / durationS,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    // Cores over the load and the drain, as cores over the events' span (the row's duration).
    cpu: coresOver(round.cpu, windowS, durationS),
    problems,
    notes: [
      `${bodies.length} provider events sent at ${intake.rps.toFixed(0)}/s over ${count} subscriptions`,
      `${recorded.length} outbound events (${tierChanges} tier.changed), ${arrivedOnce.length} arrived once, ${missing} never, ${doubled} more than once`,
      `${intake.backlog} still pending when the provider events stopped, delivered in ${drainS.toFixed(1)} s after (${(intake.backlog / drainS).toFixed(0)}/s)`,
    ],
  };
}
