// S1 to S5, each as a Scenario: prepared once per server (users created, code warmed up), then
// measured in rounds (run.ts interleaves the servers' rounds, baseline-service-service-baseline,
// so a burst of noise on the machine does not land on one server only), then verified in the
// database: users exist once, every acknowledged event is recorded once and its effect kept,
// redeliveries change nothing.
import type pg from 'pg';
import { burst, cannon, rotatingBearer, type Measured, type Request } from './load.ts';
import { signatureHeader } from '../../src/dev/payments-simulator/webhook-request.ts';
import { eventBody, eventId, subscriptionOf, type EventSource } from './events.ts';
import { watchUsage, type Usage } from './processes.ts';
import type { Server } from './stack.ts';

export interface Settings {
  connections: number;
  users: number;
  checkoutUsers: number;
  /** Measured seconds per server and scenario, split over `rounds` rounds. */
  durationS: number;
  rounds: number;
  warmupS: number;
  s4Users: number;
  s4Rounds: number;
  s5Connections: number;
  /** S5's offered rate, requests/s: latency at a steady rate, under the per-user checkout limit. */
  s5Rate: number;
}

export interface Round extends Measured, Usage {}

export interface Measurement extends Round {
  /** Problems found by the checks; empty when all is well. */
  problems: string[];
  notes: string[];
}

export interface BenchContext {
  settings: Settings;
  pool: pg.Pool;
  userTokens: string[];
  checkoutTokens: string[];
  events: EventSource & { webhookSecret: string };
  /** The next event sequence number; global, so `created` keeps increasing across servers. */
  nextSeq: number;
  newToken(sub: string): Promise<string>;
}

export interface Scenario {
  /** Once per server before its first round: warm-up, and whatever the rounds need. */
  prepare(server: Server): Promise<void>;
  round(server: Server, index: number): Promise<Round>;
  /** After the last round: what went wrong, and what is worth saying. */
  verify(server: Server): Promise<{ problems: string[]; notes: string[] }>;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

async function watched(server: Server, work: () => Promise<Measured>): Promise<Round> {
  const usage = watchUsage(server.pids());
  const result = await work();
  return { ...result, ...usage() };
}

const nonOk = (rounds: Round[]) => rounds.reduce((sum, r) => sum + r.non2xx, 0);

/** Sends every token once, 32 at a time: warms the server and creates the users where they are not seeded (PGlite). */
async function prime(server: Server, tokens: readonly string[]): Promise<number> {
  let failures = 0;
  for (let i = 0; i < tokens.length; i += 32) {
    const responses = await Promise.all(
      tokens.slice(i, i + 32).map((token) => fetch(`${server.url}/api/v1/users/me`, { headers: { authorization: `Bearer ${token}` } })),
    );
    for (const response of responses) {
      if (!response.ok) failures++;
      await response.arrayBuffer();
    }
  }
  return failures;
}

/** Rounds of autocannon on one request shape, with the same request for warm-up. */
function steady(ctx: BenchContext, connections: number, request: (server: Server) => Request, extra: Partial<Scenario> = {}, overallRate?: number) {
  const seconds = ctx.settings.durationS / ctx.settings.rounds;
  const measured = new Map<string, Round[]>();
  const scenario: Scenario = {
    async prepare(server) {
      await extra.prepare?.(server);
      if (ctx.settings.warmupS > 0) await cannon({ url: server.url, connections, durationS: ctx.settings.warmupS, request: request(server), overallRate });
    },
    async round(server) {
      const result = await watched(server, () => cannon({ url: server.url, connections, durationS: seconds, request: request(server), overallRate }));
      measured.set(server.name, [...(measured.get(server.name) ?? []), result]);
      return result;
    },
    async verify(server) {
      const failed = nonOk(measured.get(server.name) ?? []);
      const own = (await extra.verify?.(server)) ?? { problems: [], notes: [] };
      return { problems: [...(failed > 0 ? [`${failed} non-2xx/errors`] : []), ...own.problems], notes: own.notes };
    },
  };
  return scenario;
}

export function s1Profile(ctx: BenchContext): Scenario {
  const primeFailures = new Map<string, number>();
  return steady(ctx, ctx.settings.connections, () => rotatingBearer(ctx.userTokens, '/api/v1/users/me'), {
    prepare: async (server) => void primeFailures.set(server.name, await prime(server, ctx.userTokens)),
    verify: async (server) => {
      const failures = primeFailures.get(server.name) ?? 0;
      return { problems: failures > 0 ? [`${failures} failed first requests`] : [], notes: [] };
    },
  });
}

/** Unique events (S2): every acknowledged event recorded once, each subscription left at its newest event. */
export function s2Deliveries(ctx: BenchContext): Scenario & { processed: Map<string, number[]> } {
  const { events } = ctx;
  const processed = new Map<string, number[]>();
  const sent = new Map<string, number[]>();
  const unexpected = new Map<string, number>();
  const request = (server: Server): Request => ({
    method: 'POST',
    path: '/api/v1/webhooks/payments',
    headers: { 'content-type': 'application/json' },
    setupRequest(raw, context) {
      const n = ctx.nextSeq++;
      sent.get(server.name)!.push(n);
      const body = eventBody(events, n);
      context.n = n;
      raw.body = body;
      raw.headers = { ...raw.headers, 'stripe-signature': signatureHeader(body, events.webhookSecret) };
      return raw;
    },
    onResponse(status, body, context) {
      if (status === 200 && body === '{"status":"processed"}') processed.get(server.name)!.push(context.n as number);
      else unexpected.set(server.name, (unexpected.get(server.name) ?? 0) + 1);
    },
  });
  const scenario = steady(ctx, ctx.settings.connections, request, {
    prepare: async (server) => {
      processed.set(server.name, []);
      sent.set(server.name, []);
    },
    verify: async (server) => {
      await settle();
      const acknowledged = processed.get(server.name)!;
      const ids = sent.get(server.name)!.map(eventId);
      const { rows } = await ctx.pool.query<{ id: string }>('SELECT id FROM webhook_events WHERE id = ANY($1::text[])', [ids]);
      const recorded = new Set(rows.map((row) => Number(row.id.slice('evt_bench_'.length))));
      const lost = acknowledged.filter((n) => !recorded.has(n)).length;
      const newest = new Map<string, number>();
      for (const n of recorded) {
        const { id, created } = subscriptionOf(events, n);
        newest.set(id, Math.max(newest.get(id) ?? 0, created));
      }
      const { rows: states } = await ctx.pool.query<{ id: string; event_created: string }>(
        'SELECT id, event_created FROM subscriptions WHERE id = ANY($1::text[])',
        [[...newest.keys()]],
      );
      // A subscription behind its newest recorded event means an older event overwrote a newer one.
      const stale = states.filter((s) => Number(s.event_created) < newest.get(s.id)!).length;
      const other = unexpected.get(server.name) ?? 0;
      const problems: string[] = [];
      if (other > 0) problems.push(`${other} answers other than processed`);
      if (lost > 0) problems.push(`${lost} acknowledged events not recorded (lost)`);
      if (stale > 0) problems.push(`${stale} subscriptions behind their newest event`);
      return { problems, notes: [`${acknowledged.length} acknowledged, ${recorded.size} recorded, ${lost} lost, ${stale} stale`] };
    },
  });
  return { ...scenario, processed };
}

async function snapshot(pool: pg.Pool): Promise<string> {
  const { rows } = await pool.query<{ events: number; state: string }>(
    `SELECT (SELECT count(*)::int FROM webhook_events) AS events,
            (SELECT md5(string_agg(id || status || coalesce(price_id, '') || event_created, ',' ORDER BY id)) FROM subscriptions) AS state`,
  );
  return JSON.stringify(rows[0]);
}

/** Redeliveries (S3) of the events S2 processed for the same server: all `duplicate`, nothing changed. */
export function s3Redeliveries(ctx: BenchContext, processed: Map<string, number[]>): Scenario {
  const { events } = ctx;
  const counts = new Map<string, { duplicates: number; others: number }>();
  let before = '';
  const request = (server: Server): Request => {
    const seqs = processed.get(server.name) ?? [];
    if (seqs.length === 0) throw new Error('S3 needs events processed by S2');
    let next = 0;
    const count = counts.get(server.name)!;
    return {
      method: 'POST',
      path: '/api/v1/webhooks/payments',
      headers: { 'content-type': 'application/json' },
      setupRequest(raw) {
        const body = eventBody(events, seqs[next++ % seqs.length]!);
        raw.body = body;
        raw.headers = { ...raw.headers, 'stripe-signature': signatureHeader(body, events.webhookSecret) };
        return raw;
      },
      onResponse(status, body) {
        if (status === 200 && body === '{"status":"duplicate"}') count.duplicates++;
        else count.others++;
      },
    };
  };
  return steady(ctx, ctx.settings.connections, request, {
    prepare: async (server) => {
      counts.set(server.name, { duplicates: 0, others: 0 });
      if (before === '') before = await snapshot(ctx.pool);
    },
    verify: async (server) => {
      await settle();
      const { duplicates, others } = counts.get(server.name)!;
      const problems: string[] = [];
      if (others > 0) problems.push(`${others} redeliveries not answered duplicate`);
      if ((await snapshot(ctx.pool)) !== before) problems.push('redeliveries changed events or subscription state');
      return { problems, notes: [`${duplicates} duplicates, ${others} other answers`] };
    },
  });
}

/** Concurrent first requests (S4): each round N new users at once; the median round is reported. */
export function s4FirstRequests(ctx: BenchContext): Scenario {
  const { settings } = ctx;
  const problems = new Map<string, string[]>();
  return {
    async prepare(server) {
      problems.set(server.name, []);
    },
    async round(server, index) {
      const subs = Array.from({ length: settings.s4Users }, (_, i) => `s4-${server.name.replace(/\W+/g, '-')}-${index}-${i}`);
      const tokens = await Promise.all(subs.map((sub) => ctx.newToken(sub)));
      let bodies: string[] = [];
      const result = await watched(server, async () => {
        const answered = await burst(`${server.url}/api/v1/users/me`, tokens);
        bodies = answered.bodies;
        return answered;
      });
      const ids = new Set(bodies.map((body) => (body.startsWith('{') ? (JSON.parse(body) as { id?: string }).id : undefined)));
      const { rows } = await ctx.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE idp_id = ANY($1::text[])', [subs]);
      if (result.non2xx > 0) problems.get(server.name)!.push(`round ${index}: ${result.non2xx} errors`);
      if (ids.size !== subs.length || rows[0]!.n !== subs.length) {
        problems.get(server.name)!.push(`round ${index}: ${rows[0]!.n} rows, ${ids.size} distinct ids for ${subs.length} users`);
      }
      return result;
    },
    async verify(server) {
      return { problems: problems.get(server.name)!, notes: [] };
    },
  };
}

/** Checkout against the simulator (S5): latency at a fixed offered rate; the provider dominates. */
export function s5Checkout(ctx: BenchContext): Scenario {
  const { settings } = ctx;
  const request = () => rotatingBearer(ctx.checkoutTokens, '/api/v1/billing/checkout', 'POST', '{}');
  return steady(ctx, settings.s5Connections, request, {}, settings.s5Rate);
}

/** One figure from a server's rounds: summed counts, request-weighted latencies, the worst memory. */
export function combine(rounds: Round[], median = false): Round {
  if (median) {
    const sorted = [...rounds].sort((a, b) => (a.wallMs ?? 0) - (b.wallMs ?? 0));
    return { ...sorted[Math.floor(sorted.length / 2)]!, non2xx: nonOk(rounds), rssMb: Math.max(...rounds.map((r) => r.rssMb)) };
  }
  const requests = rounds.reduce((sum, r) => sum + r.requests, 0);
  const durationS = rounds.reduce((sum, r) => sum + r.durationS, 0);
  const weighted = (pick: (r: Round) => number, by: (r: Round) => number) => rounds.reduce((sum, r) => sum + pick(r) * by(r), 0) / rounds.reduce((sum, r) => sum + by(r), 0);
  return {
    requests,
    durationS,
    rps: requests / durationS,
    p50: weighted((r) => r.p50, (r) => r.requests),
    p99: weighted((r) => r.p99, (r) => r.requests),
    non2xx: nonOk(rounds),
    rssStartMb: Math.min(...rounds.map((r) => r.rssStartMb)),
    rssMb: Math.max(...rounds.map((r) => r.rssMb)),
    cpu: {
      server: weighted((r) => r.cpu.server, (r) => r.durationS),
      postgres: weighted((r) => r.cpu.postgres, (r) => r.durationS),
      load: weighted((r) => r.cpu.load, (r) => r.durationS),
    },
  };
}
