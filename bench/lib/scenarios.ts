// S1 to S5, each as a Scenario (S2b, the backlog, in backlog.ts on the same steady rounds):
// prepared once per server (users created, code warmed up), then measured in rounds (run.ts
// interleaves the servers' rounds, baseline-service-service-baseline, so a burst of noise on the
// machine does not land on one server only), then verified in the database: users exist once,
// every acknowledged event is recorded once and its effect kept, redeliveries change nothing.
import type pg from 'pg';
import { burst, prepareLoad, rotatingBearer, type Measured, type Traffic } from './load.ts';
import { signatureHeader } from '@billing/payments-simulator';
import { eventBody, eventId, subscriptionOf, type EventSource } from './events.ts';
import { watchUsage, type Usage } from './processes.ts';
import { countDatabaseWrites } from './database-writes.ts';
import { addCalls, resetCalls, settledCalls, type Calls } from './provider-calls.ts';
import type { Server } from './stack.ts';
import { serviceState } from './webhook-state.ts';

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
  /** The outbound events: provider events sent, each a tier change, so each an event to deliver. */
  outboundEvents: number;
  /** S2b: subscriptions per server that receive late events. */
  backlogSubscriptions: number;
  /** The replay: undelivered events at the provider, five per subscription. */
  replayEvents: number;
  /** The reconciliation: subscriptions at the provider. */
  reconcileSubscriptions: number;
  /** The ledger's size: millions of event records. */
  ledgerMillions: number;
  /** Organisations: how many, and the new members each gets in the burst. */
  organizations: number;
  membersEach: number;
}

export interface Round extends Measured, Usage {
  /** Provider calls the simulator served during the window. */
  calls: Calls;
  /** Writes the serving processes sent to PostgreSQL during the window (database-writes.ts). */
  databaseWrites?: number;
}

export interface Measurement extends Round {
  /** Problems found by the checks; empty when all is well. */
  problems: string[];
  notes: string[];
  /** The distinct subscriptions a webhook scenario's events were for, where provider reads are held to it. */
  subscriptions?: number;
}

export interface BenchContext {
  settings: Settings;
  pool: pg.Pool;
  databaseUrl: string;
  simulatorUrl: string;
  userTokens: string[];
  checkoutTokens: string[];
  events: EventSource & { webhookSecret: string };
  /** The next event sequence number; global, so `created` keeps increasing across servers. */
  nextSeq: number;
  newToken(sub: string): Promise<string>;
}

export type Verdict = Pick<Measurement, 'problems' | 'notes' | 'subscriptions'>;

export interface Scenario {
  /** Once per server before its first round: warm-up, and whatever the rounds need. */
  prepare(server: Server): Promise<void>;
  round(server: Server, index: number): Promise<Round>;
  /** After the last round: what went wrong, and what is worth saying. */
  verify(server: Server): Promise<Verdict>;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

/** Where a server's webhook events are checked: its own database, or the bench database. */
const stateOf = (ctx: BenchContext, server: Server) => server.state ?? serviceState(ctx.pool);

/** `cpu`, in cores over `windowS` seconds, as cores over `seconds` (the same CPU time). */
export const coresOver = (cpu: Usage['cpu'], windowS: number, seconds: number): Usage['cpu'] => ({
  server: (cpu.server * windowS) / seconds,
  postgres: (cpu.postgres * windowS) / seconds,
  load: (cpu.load * windowS) / seconds,
});

export async function watched(
  ctx: BenchContext,
  pids: number[],
  work: () => Promise<Measured>,
  exitedChildrenAre: 'load' | 'server' = 'load',
): Promise<Round> {
  await resetCalls(ctx.simulatorUrl);
  // A command's connections are gone by the end of its window: its writes cannot be counted.
  const writes = exitedChildrenAre === 'load' ? countDatabaseWrites(pids, ctx.databaseUrl) : null;
  const usage = watchUsage(pids, exitedChildrenAre);
  const started = performance.now();
  const result = await work();
  const used = usage();
  // The window also holds the load generator reading its requests (seconds for S2's 5 KB events),
  // when no request is sent: CPU is told per second of the measured run, so that CPU per request
  // is what the servers spent on the requests counted.
  const windowS = (performance.now() - started) / 1000;
  return {
    ...result,
    ...used,
    cpu: coresOver(used.cpu, windowS, Math.min(windowS, result.durationS)),
    ...(writes === null ? {} : { databaseWrites: writes() }),
    calls: await settledCalls(ctx.simulatorUrl),
  };
}

const nonOk = (rounds: Round[]) => rounds.reduce((sum, r) => sum + r.non2xx, 0);

/** Sends every token once, 32 at a time: warms the server and creates the users where they are not seeded (PGlite). */
async function prime(server: Server, tokens: readonly string[]): Promise<number> {
  let failures = 0;
  for (let i = 0; i < tokens.length; i += 32) {
    const responses = await Promise.all(
      tokens
        .slice(i, i + 32)
        .map((token) =>
          fetch(`${server.url}/api/v1/users/me`, { headers: { authorization: `Bearer ${token}` } }),
        ),
    );
    for (const response of responses) {
      if (!response.ok) failures++;
      await response.arrayBuffer();
    }
  }
  return failures;
}

/** What a steady scenario adds: its own preparation, checks that see the server's rounds, a fixed rate. */
export interface SteadyExtra {
  prepare?(server: Server): Promise<void>;
  verify?(server: Server, rounds: Round[]): Promise<Verdict>;
  /** Requests per second offered in all, instead of as many as the server answers (autocannon only). */
  overallRate?: number;
}

/** Rounds of steady load (wrk or autocannon) on one request shape, with the same traffic for warm-up. */
/** Whether a steady window is the warm-up or a measured round. */
export type Phase = 'warm-up' | 'round';

export function steady(
  ctx: BenchContext,
  connections: number,
  traffic: (server: Server, phase: Phase) => Traffic,
  extra: SteadyExtra = {},
) {
  const { overallRate } = extra;
  const seconds = ctx.settings.durationS / ctx.settings.rounds;
  const measured = new Map<string, Round[]>();
  /** Each server's rate in its warm-up: a round's unique requests are written for more. */
  const warmedAt = new Map<string, number>();
  const scenario: Scenario = {
    async prepare(server) {
      await extra.prepare?.(server);
      if (ctx.settings.warmupS > 0) {
        const warm = await prepareLoad({
          url: server.url,
          connections,
          durationS: ctx.settings.warmupS,
          traffic: traffic(server, 'warm-up'),
          overallRate,
        })();
        warmedAt.set(server.name, warm.rps);
      }
    },
    async round(server) {
      const load = prepareLoad({
        url: server.url,
        connections,
        durationS: seconds,
        traffic: traffic(server, 'round'),
        overallRate,
        expectedRps: warmedAt.get(server.name),
      });
      const result = await watched(ctx, server.pids(), load);
      measured.set(server.name, [...(measured.get(server.name) ?? []), result]);
      return result;
    },
    async verify(server) {
      const rounds = measured.get(server.name) ?? [];
      const failed = nonOk(rounds);
      const own = (await extra.verify?.(server, rounds)) ?? { problems: [], notes: [] };
      return {
        ...own,
        problems: [...(failed > 0 ? [`${failed} non-2xx/errors`] : []), ...own.problems],
      };
    },
  };
  return scenario;
}

export function s1Profile(ctx: BenchContext): Scenario {
  const primeFailures = new Map<string, number>();
  return steady(
    ctx,
    ctx.settings.connections,
    () => rotatingBearer(ctx.userTokens, 'GET', '/api/v1/users/me'),
    {
      prepare: async (server) =>
        void primeFailures.set(server.name, await prime(server, ctx.userTokens)),
      verify: async (server) => {
        const failures = primeFailures.get(server.name) ?? 0;
        return { problems: failures > 0 ? [`${failures} failed first requests`] : [], notes: [] };
      },
    },
  );
}

/** One signed webhook delivery of `body`, as Stripe sends it. */
export const signedEvent = (secret: string, body: string) => ({
  header: ['stripe-signature', signatureHeader(body, secret)] as const,
  body,
});

/** Deliveries to the webhook endpoint, `next` giving each signed event; `expect` is the answer that counts as right. */
export const webhookTraffic = (
  next: Traffic['next'],
  expect: string,
  distinct?: number,
): Traffic => ({
  method: 'POST',
  path: '/api/v1/webhooks/payments',
  headers: { 'content-type': 'application/json' },
  next,
  expect,
  ...(distinct === undefined ? {} : { distinct }),
});

/** The expected and other answers over a server's rounds. */
export const answersOf = (rounds: Round[]) =>
  rounds.reduce(
    (sum, r) => ({
      expected: sum.expected + (r.answers?.expected ?? 0),
      other: sum.other + (r.answers?.other ?? 0),
    }),
    { expected: 0, other: 0 },
  );

/**
 * Unique events (S2): every event answered `processed` is recorded once (counted: the answers of a
 * wrk window cannot be matched to their requests), each subscription left at its newest event.
 * `processed` gets, per server, the events recorded, for S3 to redeliver.
 */
export function s2Deliveries(ctx: BenchContext): Scenario & { processed: Map<string, number[]> } {
  const { events } = ctx;
  const processed = new Map<string, number[]>();
  const sent = new Map<string, number[]>();
  // The warm-up's events are not checked against the rounds' answers.
  const traffic = (server: Server, phase: Phase) =>
    webhookTraffic(() => {
      const n = ctx.nextSeq++;
      if (phase === 'round') sent.get(server.name)!.push(n);
      return signedEvent(events.webhookSecret, eventBody(events, n));
    }, '{"status":"processed"}');
  const scenario = steady(ctx, ctx.settings.connections, traffic, {
    prepare: async (server) => {
      sent.set(server.name, []);
    },
    verify: async (server, rounds) => {
      await settle();
      const state = stateOf(ctx, server);
      const ids = await state.recorded(sent.get(server.name)!.map(eventId));
      const recorded = ids.map((id) => Number(id.slice('evt_bench_'.length)));
      processed.set(server.name, recorded);
      const { expected: acknowledged, other } = answersOf(rounds);
      const lost = Math.max(0, acknowledged - recorded.length);
      const newest = new Map<string, number>();
      for (const n of recorded) {
        const { id, created } = subscriptionOf(events, n);
        newest.set(id, Math.max(newest.get(id) ?? 0, created));
      }
      const asOf = await state.asOf([...newest.keys()]);
      // A subscription behind its newest recorded event: an older event overwrote a newer one, or
      // the event's effect reached no row.
      const stale = [...newest].filter(([id, created]) => (asOf.get(id) ?? 0) < created).length;
      const problems: string[] = [];
      if (other > 0) problems.push(`${other} answers other than processed`);
      if (lost > 0) problems.push(`${lost} acknowledged events not recorded (lost)`);
      if (stale > 0) problems.push(`${stale} subscriptions behind their newest event`);
      return {
        problems,
        notes: [
          `${acknowledged} acknowledged, ${recorded.length} recorded, ${lost} lost, ${stale} stale`,
        ],
      };
    },
  });
  return { ...scenario, processed };
}

/** Events S3 redelivers in rotation, as the floor's S3: the last ones S2 recorded on that server. */
const S3_EVENTS = 1_000;

/** Redeliveries (S3) of the events S2 recorded for the same server: all `duplicate`, nothing changed. */
export function s3Redeliveries(ctx: BenchContext, processed: Map<string, number[]>): Scenario {
  const { events } = ctx;
  const before = new Map<string, string>();
  const traffic = (server: Server) => {
    const seqs = (processed.get(server.name) ?? []).slice(-S3_EVENTS);
    if (seqs.length === 0) throw new Error('S3 needs events processed by S2');
    let next = 0;
    return webhookTraffic(
      () => signedEvent(events.webhookSecret, eventBody(events, seqs[next++ % seqs.length]!)),
      '{"status":"duplicate"}',
      seqs.length,
    );
  };
  return steady(ctx, ctx.settings.connections, traffic, {
    prepare: async (server) => {
      before.set(server.name, await stateOf(ctx, server).snapshot());
    },
    verify: async (server, rounds) => {
      await settle();
      const { expected: duplicates, other } = answersOf(rounds);
      const problems: string[] = [];
      if (other > 0) problems.push(`${other} redeliveries not answered duplicate`);
      if ((await stateOf(ctx, server).snapshot()) !== before.get(server.name))
        problems.push('redeliveries changed events or subscription state');
      return { problems, notes: [`${duplicates} duplicates, ${other} other answers`] };
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
      const subs = Array.from(
        { length: settings.s4Users },
        (_, i) => `s4-${server.name.replace(/\W+/g, '-')}-${index}-${i}`,
      );
      const tokens = await Promise.all(subs.map((sub) => ctx.newToken(sub)));
      let bodies: string[] = [];
      const result = await watched(ctx, server.pids(), async () => {
        const answered = await burst(`${server.url}/api/v1/users/me`, tokens);
        bodies = answered.bodies;
        return answered;
      });
      const ids = new Set(
        bodies.map((body) =>
          body.startsWith('{') ? (JSON.parse(body) as { id?: string }).id : undefined,
        ),
      );
      const { rows } = await ctx.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM users WHERE idp_id = ANY($1::text[])',
        [subs],
      );
      if (result.non2xx > 0)
        problems.get(server.name)!.push(`round ${index}: ${result.non2xx} errors`);
      if (ids.size !== subs.length || rows[0]!.n !== subs.length) {
        problems
          .get(server.name)!
          .push(
            `round ${index}: ${rows[0]!.n} rows, ${ids.size} distinct ids for ${subs.length} users`,
          );
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
  return steady(
    ctx,
    settings.s5Connections,
    () => rotatingBearer(ctx.checkoutTokens, 'POST', '/api/v1/billing/checkout', '{}'),
    { overallRate: settings.s5Rate },
  );
}

/** One figure from a server's rounds: summed counts, request-weighted latencies, the worst memory. */
export function combine(rounds: Round[], median = false): Round {
  if (median) {
    const sorted = [...rounds].sort((a, b) => (a.wallMs ?? 0) - (b.wallMs ?? 0));
    return {
      ...sorted[Math.floor(sorted.length / 2)]!,
      non2xx: nonOk(rounds),
      rssMb: Math.max(...rounds.map((r) => r.rssMb)),
      calls: addCalls(...rounds.map((r) => r.calls)),
    };
  }
  const requests = rounds.reduce((sum, r) => sum + r.requests, 0);
  const durationS = rounds.reduce((sum, r) => sum + r.durationS, 0);
  const weighted = (pick: (r: Round) => number, by: (r: Round) => number) =>
    rounds.reduce((sum, r) => sum + pick(r) * by(r), 0) / rounds.reduce((sum, r) => sum + by(r), 0);
  return {
    requests,
    durationS,
    rps: requests / durationS,
    p50: weighted(
      (r) => r.p50,
      (r) => r.requests,
    ),
    p99: weighted(
      (r) => r.p99,
      (r) => r.requests,
    ),
    non2xx: nonOk(rounds),
    ...(rounds.some((r) => r.answers !== undefined) ? { answers: answersOf(rounds) } : {}),
    ...(rounds[0]?.generator === undefined ? {} : { generator: rounds[0].generator }),
    calls: addCalls(...rounds.map((r) => r.calls)),
    ...(rounds.every((r) => r.databaseWrites !== undefined)
      ? { databaseWrites: rounds.reduce((sum, r) => sum + r.databaseWrites!, 0) }
      : {}),
    rssStartMb: Math.min(...rounds.map((r) => r.rssStartMb)),
    rssMb: Math.max(...rounds.map((r) => r.rssMb)),
    cpu: {
      server: weighted(
        (r) => r.cpu.server,
        (r) => r.durationS,
      ),
      postgres: weighted(
        (r) => r.cpu.postgres,
        (r) => r.durationS,
      ),
      load: weighted(
        (r) => r.cpu.load,
        (r) => r.durationS,
      ),
    },
  };
}
