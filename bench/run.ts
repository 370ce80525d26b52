// npm run bench [-- --smoke] [--only=S1,S2,S3,S2b,S4,S5,credits,events,replay,reconcile,ledger,orgs,cluster,pglite,embedded,floor] [--duration=SECONDS] [--profile] [--strict]
// BENCH_FLOOR=<a copy of the reference floor server, npm ci done> adds `floor`: S1-S3 against it.
// Builds the service as `npm start` does, starts a PostgreSQL, an OIDC issuer stand-in, the
// payment simulator, the baseline and the service (production settings: node dist/server.mjs),
// runs S1-S5 and S2b (a backlog of late events) against both one after the other, the service's
// credit spends (beside the floor's S1 with BENCH_FLOOR, else beside its own S1), the outbound
// events (their delivery to a receiver here, and what they add to S2), the replay
// command over undelivered events, the reconcile command over 10,000 subscriptions, the ledger's
// size over a million events with retention, a burst of members of many organisations and their
// seat engine's provider calls, then S1 with WEB_CONCURRENCY=2, on PGlite and on the
// embedded default (no DATABASE_URL: the embedded PostgreSQL under DATA_DIR), with BENCH_FLOOR
// S1-S3 against the floor server beside the service, prints the table and
// the targets, writes the JSON, and stops everything it started, whatever happens. See
// docs/benchmarks.md.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  checkoutSub,
  openBenchDatabase,
  seed,
  userEmail,
  userSub,
  type BenchDatabase,
} from './lib/database.ts';
import { embeddedPostgresPids, peakRssMb, pssMb, stopAll } from './lib/processes.ts';
import {
  checkTargets,
  cpuPerThousand,
  databaseWritesPerRequest,
  EVENTS_SERVER,
  FLOOR_LABEL,
  REPLAY_SERVER,
  table,
  writeJson,
  type Row,
} from './lib/report.ts';
import {
  combine,
  s1Profile,
  s2Deliveries,
  s3Redeliveries,
  s4FirstRequests,
  s5Checkout,
  type BenchContext,
  type Round,
  type Scenario,
  type Settings,
} from './lib/scenarios.ts';
import { s2bBacklog } from './lib/backlog.ts';
import { STEADY_GENERATOR } from './lib/load.ts';
import { ledgerSize } from './lib/ledger-size.ts';
import { organizationsBurst } from './lib/organizations.ts';
import {
  lastOutboundSeq,
  outboxThroughput,
  startReceiver,
  type Receiver,
} from './lib/outbound-events.ts';
import { reconcileSubscriptions } from './lib/reconcile.ts';
import { locateFloor, startFloor } from './lib/floor.ts';
import { CREDIT_SUBJECTS, creditSpends, eachServer, serviceToken } from './lib/credits.ts';
import { replayUndelivered } from './lib/replay.ts';
import {
  PRICES,
  SERVICE_ENTRY,
  SERVICE_NODE_FLAGS,
  WEBHOOK_SECRET,
  buildService,
  startBaseline,
  startIssuer,
  startService,
  startSimulator,
  type Server,
  type Stack,
} from './lib/stack.ts';

const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const profile = args.includes('--profile');
const strict = args.includes('--strict');
// The smoke run skips the two S1 variants (each a further service start-up); --only can add them.
// The floor is not part of the project: measured by default only where BENCH_FLOOR names a copy.
const only = new Set(
  (
    args.find((a) => a.startsWith('--only='))?.slice('--only='.length) ??
    (smoke
      ? 'S1,S2,S3,S2b,S4,S5,credits,events,replay,reconcile,ledger,orgs'
      : 'S1,S2,S3,S2b,S4,S5,credits,events,replay,reconcile,ledger,orgs,cluster,pglite,embedded') +
      (process.env.BENCH_FLOOR ? ',floor' : '')
  ).split(','),
);

let floorEntry: string | undefined;
try {
  floorEntry = only.has('floor') ? locateFloor(process.env.BENCH_FLOOR) : undefined;
} catch (error) {
  console.error(`bench: ${(error as Error).message}`);
  process.exit(1);
}

const settings: Settings = smoke
  ? {
      connections: 32,
      users: 50,
      checkoutUsers: 100,
      durationS: 0.3,
      rounds: 1,
      warmupS: 0,
      s4Users: 20,
      s4Rounds: 1,
      s5Connections: 4,
      s5Rate: 100,
      outboundEvents: 200,
      backlogSubscriptions: 20,
      replayEvents: 100,
      reconcileSubscriptions: 200,
      ledgerMillions: 0.02,
      organizations: 10,
      membersEach: 5,
    }
  : // S5: 500 users at 200 requests/s (with warm-up, about 5 checkouts per user): the per-user checkout
    // rate limit (20 a minute) is never what S5 measures.
    {
      connections: 32,
      users: 1000,
      checkoutUsers: 500,
      durationS: 10,
      rounds: 2,
      warmupS: 2,
      s4Users: 200,
      s4Rounds: 5,
      s5Connections: 8,
      s5Rate: 200,
      outboundEvents: 5000,
      backlogSubscriptions: 1000,
      replayEvents: 10_000,
      reconcileSubscriptions: 10_000,
      ledgerMillions: 1,
      organizations: 100,
      membersEach: 10,
    };

const durationArg = args.find((a) => a.startsWith('--duration='));
if (durationArg) settings.durationS = Number(durationArg.slice('--duration='.length));

const resultsDir = resolve('bench/results');
const logsDir = join(resultsDir, 'logs');
const startedAt = performance.now();
const loadAtStart = loadavg()[0]!;
const progress = (message: string) =>
  console.error(`[bench ${((performance.now() - startedAt) / 1000).toFixed(1)}s] ${message}`);

const rows: Row[] = [];
/** What must be closed at the end, filled in as it starts. */
const opened: { db?: BenchDatabase; issuer?: Stack['issuer']; receiver?: Receiver } = {};
let failure: unknown = null;

async function run(): Promise<void> {
  rmSync(logsDir, { recursive: true, force: true });
  mkdirSync(logsDir, { recursive: true });
  buildService();
  progress(`service: node ${[...SERVICE_NODE_FLAGS, SERVICE_ENTRY].join(' ')}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-data-'));
  const db = (opened.db = await openBenchDatabase());
  progress(`PostgreSQL: ${db.origin}`);
  const issuer = (opened.issuer = await startIssuer());
  const simulator = await startSimulator(db.url, logsDir);
  const stack: Stack = {
    databaseUrl: db.url,
    issuer,
    simulatorUrl: simulator.url,
    logsDir,
    dataDir,
  };
  const baseCreated = Math.floor(Date.now() / 1000) - 7 * 86_400;
  const userIds = await seed(db.pool, {
    users: settings.users,
    checkoutUsers: settings.checkoutUsers,
    baseCreated,
  });
  const sign = (sub: string) => issuer.token(sub, { email: userEmail(sub) });
  const ctx: BenchContext = {
    settings,
    pool: db.pool,
    databaseUrl: db.url,
    simulatorUrl: simulator.url,
    userTokens: await Promise.all(userIds.map((_, i) => sign(userSub(i)))),
    checkoutTokens: await Promise.all(
      Array.from({ length: settings.checkoutUsers }, (_, i) => sign(checkoutSub(i))),
    ),
    events: { webhookSecret: WEBHOOK_SECRET, userIds, baseCreated, prices: PRICES },
    nextSeq: 1,
    newToken: sign,
  };
  progress(
    `seeded ${settings.users} users with subscriptions and ${settings.checkoutUsers} without; starting the baseline and the service`,
  );
  const cpuProfileDir = profile ? join(resultsDir, 'profiles') : undefined;
  const [baseline, service] = await Promise.all([
    startBaseline(stack, cpuProfileDir && join(cpuProfileDir, 'baseline')),
    startService(stack, {
      name: 'service',
      cpuProfileDir: cpuProfileDir && join(cpuProfileDir, 'service'),
    }),
  ]);

  /** Two servers (baseline and service), prepared, then measured in alternating rounds (B S S B ...), then verified. */
  const pair = async (
    scenario: string,
    work: Scenario,
    rounds: number,
    median = false,
    [first, second] = [baseline, service],
  ) => {
    progress(`${scenario}: preparing both`);
    const servers = [first, second];
    for (const server of servers) await work.prepare(server);
    const measured = new Map<string, Round[]>(servers.map((server) => [server.name, []]));
    for (let i = 0; i < rounds; i++) {
      for (const server of i % 2 === 0 ? servers : [...servers].reverse()) {
        progress(`${scenario}: ${server.name}, round ${i + 1} of ${rounds}`);
        measured.get(server.name)!.push(await work.round(server, i));
      }
    }
    const row = async (server: Server, against?: Row): Promise<Row> => ({
      scenario,
      server: server.name,
      m: { ...combine(measured.get(server.name)!, median), ...(await work.verify(server)) },
      against,
    });
    const b = await row(first);
    const s = await row(second, b);
    rows.push(b, s);
    return s;
  };
  /** One server alone (S5, and the variants of S1), in one go. */
  const single = async (scenario: string, server: Server, work: Scenario, against?: Row) => {
    progress(`${scenario}: ${server.name}`);
    await work.prepare(server);
    const rounds: Round[] = [];
    for (let i = 0; i < settings.rounds; i++) rounds.push(await work.round(server, i));
    rows.push({
      scenario,
      server: server.name,
      m: { ...combine(rounds), ...(await work.verify(server)) },
      against,
    });
  };
  const c = settings.connections;
  const r = settings.rounds;
  /** S1, S2 and S3 (those `wanted`) on two servers; the second's S1 row. */
  const hotPaths = async (
    label: string,
    servers: [Server, Server],
    wanted: (scenario: string) => boolean,
  ) => {
    let s1: Row | undefined;
    const name = (scenario: string) => `${label}${scenario}, ${c} conn`;
    if (wanted('S1'))
      s1 = await pair(
        name(`S1 GET /users/me, ${settings.users} users`),
        s1Profile(ctx),
        r,
        false,
        servers,
      );
    if (wanted('S2') || wanted('S3')) {
      const s2 = s2Deliveries(ctx);
      await pair(name('S2 webhook, unique events'), s2, r, false, servers);
      if (wanted('S3'))
        await pair(
          name('S3 webhook, redeliveries'),
          s3Redeliveries(ctx, s2.processed),
          r,
          false,
          servers,
        );
    }
    return s1;
  };
  const s1 = await hotPaths('', [baseline, service], (scenario) => only.has(scenario));
  const spends = `credits POST /credits/spend, ${CREDIT_SUBJECTS} subjects, ${c} conn`;
  const credits = only.has('credits') ? creditSpends(ctx, await serviceToken(issuer)) : undefined;
  /** The service with outbound events to a receiver here, as an application that wants them runs it. */
  const startWithEvents = async () => {
    const receiver = (opened.receiver ??= await startReceiver());
    const server = await startService(stack, {
      name: EVENTS_SERVER,
      env: { APP_WEBHOOK_URL: receiver.url, APP_WEBHOOK_SECRET: receiver.secret },
    });
    return { receiver, server };
  };
  if (floorEntry !== undefined) {
    progress(`floor: ${floorEntry}, in a database of its own`);
    const floor = await startFloor(stack, floorEntry, db.pool);
    try {
      await hotPaths(FLOOR_LABEL, [floor, service], () => true);
      // The floor has no spend: its S1 and the service's spends in the same interleaved rounds.
      if (credits !== undefined)
        await pair(
          `${FLOOR_LABEL}${spends} (floor: S1 GET /users/me)`,
          eachServer((server) => (server === floor ? s1Profile(ctx) : credits)),
          r,
          false,
          [floor, service],
        );
      const { server } = await startWithEvents();
      const scenario = `${FLOOR_LABEL}S2 webhook, unique events, APP_WEBHOOK_URL set, ${c} conn`;
      await pair(scenario, s2Deliveries(ctx), r, false, [floor, server]).finally(server.stop);
    } finally {
      await floor.stop();
    }
  }
  if (credits !== undefined && floorEntry === undefined) {
    await single(spends, service, credits, s1);
    if (s1 !== undefined) rows.at(-1)!.m.notes.push("vs: the service's own S1 (no floor here)");
  }
  if (only.has('S2b'))
    await pair(
      `S2b webhook, late events, ${settings.backlogSubscriptions} re-read subscriptions, ${c} conn`,
      s2bBacklog(ctx),
      r,
    );
  if (only.has('S4'))
    await pair(
      `S4 ${settings.s4Users} concurrent first requests`,
      s4FirstRequests(ctx),
      settings.s4Rounds,
      true,
    );
  if (only.has('S5'))
    await single(
      `S5 checkout, simulator, ${settings.s5Rate} req/s offered`,
      service,
      s5Checkout(ctx),
    );
  if (only.has('events')) {
    const { receiver, server: withEvents } = await startWithEvents();
    progress('events: tier changes until the outbox is empty');
    rows.push({
      scenario: `events outbox to a local receiver, ${settings.outboundEvents} tier changes, ${c} conn`,
      server: withEvents.name,
      m: await outboxThroughput(ctx, withEvents, receiver),
    });
    const before = await lastOutboundSeq(db.pool);
    const s2 = await pair(
      `events S2 webhook, APP_WEBHOOK_URL unset/set, ${c} conn`,
      s2Deliveries(ctx),
      r,
      false,
      [service, withEvents],
    );
    s2.m.notes.push(
      `${(await lastOutboundSeq(db.pool)) - before} outbound events written (warm-up and rounds) for ${s2.m.answers?.expected ?? 0} provider events acknowledged in the rounds`,
    );
    await withEvents.stop();
  }
  await Promise.all([service.stop(), baseline.stop()]);
  if (only.has('replay')) {
    progress(`replay: ${settings.replayEvents} undelivered events`);
    rows.push({
      scenario: `replay ${settings.replayEvents} undelivered events (payments:replay)`,
      server: REPLAY_SERVER,
      m: await replayUndelivered(ctx, stack),
    });
  }
  if (only.has('reconcile')) {
    progress(`reconcile: ${settings.reconcileSubscriptions} subscriptions at the provider, twice`);
    const { adoption, drift } = await reconcileSubscriptions(ctx, stack);
    const n = settings.reconcileSubscriptions;
    rows.push(
      {
        scenario: `reconcile ${n} subscriptions, all new to the service`,
        server: REPLAY_SERVER,
        m: adoption,
      },
      {
        scenario: `reconcile ${n} subscriptions, a tenth drifted`,
        server: REPLAY_SERVER,
        m: drift,
      },
    );
  }
  if (only.has('ledger')) {
    progress(`ledger: ${settings.ledgerMillions * 1_000_000} event records, then retention`);
    rows.push({
      scenario: `ledger ${settings.ledgerMillions * 1_000_000} events over 70 days, retention 35 days`,
      server: 'PostgreSQL',
      m: await ledgerSize(ctx.databaseUrl, settings.ledgerMillions),
    });
  }
  if (only.has('orgs')) {
    const { organizations, membersEach } = settings;
    progress(
      `orgs: ${organizations * membersEach} members of ${organizations} organisations signing in`,
    );
    rows.push({
      scenario: `orgs ${organizations * membersEach} members of ${organizations} organisations signing in, seats following`,
      server: 'service',
      m: await organizationsBurst(ctx, stack, issuer, { organizations, membersEach }),
    });
  }
  if (only.has('cluster') && !smoke && s1 !== undefined) {
    progress('S1: service with WEB_CONCURRENCY=2');
    const cluster = await startService(stack, { name: 'service x2', webConcurrency: 2 });
    await single(s1.scenario, cluster, s1Profile(ctx), s1);
    await cluster.stop();
  }
  if (only.has('pglite') && s1 !== undefined) {
    progress('S1: service on PGlite (memory://)');
    const embedded = await startService(stack, {
      name: 'service PGlite',
      databaseUrl: 'memory://',
      nodeEnv: 'development',
    });
    await single(`${s1.scenario}, PGlite`, embedded, s1Profile(ctx), s1.against);
    await embedded.stop();
  }
  if (only.has('embedded') && s1 !== undefined) {
    progress(
      'S1: service on the embedded default (DATABASE_URL unset: embedded PostgreSQL under DATA_DIR)',
    );
    // A DATA_DIR of its own beside the other (as root, the embedded server's user must be able to enter it).
    const embeddedDir = mkdtempSync(join(tmpdir(), 'bench-embedded-'));
    const embedded = await startService(
      { ...stack, dataDir: embeddedDir },
      { name: 'service embedded', databaseUrl: '' },
    );
    // VmHWM now is start-up's peak; watchUsage resets it for each round, so keep it apart.
    const startupPeakMb = peakRssMb(embedded.managed.child.pid!);
    await single(`${s1.scenario}, embedded`, embedded, s1Profile(ctx), s1);
    const row = rows.at(-1)!;
    row.m.rssMb = Math.max(row.m.rssMb, startupPeakMb);
    const cluster = embeddedPostgresPids(embedded.managed.child.pid!);
    row.m.notes.push(
      `peak RSS ${row.m.rssMb.toFixed(0)} MB since start-up (start-up alone ${startupPeakMb.toFixed(0)} MB)`,
      `embedded PostgreSQL: ${cluster.length} processes, ${pssMb(cluster).toFixed(0)} MB PSS in all`,
    );
    await embedded.stop();
    rmSync(embeddedDir, { recursive: true, force: true });
  }
  rmSync(dataDir, { recursive: true, force: true });
}

try {
  await run();
} catch (error) {
  failure = error;
  console.error(
    `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
} finally {
  progress('stopping everything');
  await stopAll();
  await opened.issuer?.close().catch(() => {});
  await opened.receiver?.close().catch(() => {});
  await opened.db?.close().catch(() => {});
}

const seconds = (performance.now() - startedAt) / 1000;
const targets = checkTargets(rows);
const load = `load average ${loadAtStart.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after (2 cores: above ~3 something else was busy)`;
const service = { entry: SERVICE_ENTRY, nodeFlags: SERVICE_NODE_FLAGS };
console.log(
  `\nBenchmark ${smoke ? '(smoke) ' : ''}- ${new Date().toISOString()}, node ${process.version}, ${seconds.toFixed(0)} s in all, ${load}`,
);
console.log(
  `service: node ${[...service.nodeFlags, service.entry].join(' ')}; steady load from ${STEADY_GENERATOR}${STEADY_GENERATOR === 'wrk' ? ' (S5 at a fixed rate: autocannon)' : ''}\n`,
);
console.log(table(rows));
console.log('\nTargets:');
for (const t of targets)
  console.log(`  ${t.met === null ? '-  ' : t.met ? 'MET' : 'NOT'}  ${t.name}: ${t.detail}`);
const file = writeJson(resultsDir, {
  smoke,
  settings,
  seconds,
  load,
  node: process.version,
  service,
  loadGenerator: STEADY_GENERATOR,
  rows: rows.map(({ against, ...row }) => ({
    ...row,
    cpuSecondsPer1000: cpuPerThousand(row.m),
    databaseWritesPerRequest: databaseWritesPerRequest(row.m),
    against: against?.server,
  })),
  targets,
  error: failure ? String(failure) : null,
});
console.log(`\nJSON: ${file}; server logs: ${logsDir}`);
const problems = rows.filter((r) => r.m.problems.length > 0);
if (problems.length > 0)
  console.log(
    `\nCHECKS FAILED in ${problems.map((r) => `${r.scenario} / ${r.server}`).join(', ')} (see the checks column)`,
  );
// 1: it did not run. With --strict, 2: it ran but a check failed (lost, doubled or stale events, errors).
process.exit(failure !== null || rows.length === 0 ? 1 : strict && problems.length > 0 ? 2 : 0);
