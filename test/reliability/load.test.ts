// Promise: under a bounded mixed load (GET /users/me, POST /billing/checkout and webhook
// deliveries of which 20 % repeat an event already sent) on two service processes sharing one
// PostgreSQL, for at least 60 s: no 5xx and no failed connection, no event lost (every event id
// sent is recorded exactly once and its effects applied once, whichever process and however many
// deliveries), exactly one user per subject, and memory flat after warm-up. The run happens once,
// before the tests; each test then checks one of those guarantees on it. The figures are printed.
// RELIABILITY_LOAD_SECONDS shortens the run for local work; CI runs the full 60 s.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import autocannon from 'autocannon';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { onPostgres } from '../helpers/database.ts';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';
import {
  eventOf,
  invoiceObject,
  signedHeaders,
  subscriptionObject,
} from '../helpers/stripe-fixtures.ts';
import { SUBSCRIPTION_WRITE_AUDIT } from '../helpers/write-audit.ts';
import { halves, sampleMemory, type MemorySample } from '../helpers/memory.ts';

type RequestSpec = NonNullable<Parameters<typeof autocannon>[0]['requests']>[number];

const SECONDS = Number(process.env.RELIABILITY_LOAD_SECONDS ?? 60);
const WARM_UP_MS = Math.min(20_000, (SECONDS * 1000) / 3);
const CONNECTIONS = 16;
/** Requests per second across both processes: a bounded load, well below what they can take. */
const RATE = 300;
const SUBJECTS = 300;
const DUPLICATE_SHARE = 0.2;
const SECRET = 'whsec_local_simulator';
const STATUSES = ['active', 'canceled', 'incomplete', 'past_due', 'trialing'] as const;
/**
 * After warm-up, from the first half to the second: resident memory (median) and the heap left
 * after GC (floor). The heap floor is the leak signal; RSS only catches memory outside the heap
 * (buffers, native), and on Node 24 the allocator alone was seen to add 20 % in a minute, so its
 * bound catches a leak of a few KB per request, not the allocator's drift.
 */
const RSS_GROWTH_ALLOWED = 1.35;
/**
 * The floor is the least of about ten samples a half, so old-space garbage not yet collected by a
 * major GC lifts it too: eight processes in two CI runs (2026-11-29) drifted 1.14x to 1.25x with no
 * leak found. 1.4x still catches a leak of about 3 KB per request (150 a second each, for 40 s).
 */
const HEAP_FLOOR_GROWTH_ALLOWED = 1.4;

type Kind = 'me' | 'checkout' | 'webhook';

interface SentEvent {
  payload: string;
  /** The subscription whose write it must cause exactly once, for events about a known user. */
  writes: string | null;
  /** Deliveries started, answered or not (the run's end cuts the last ones off). */
  attempts: number;
  outcomes: string[];
}

/** What the load sent and what it was answered. */
interface Traffic {
  events: Map<string, SentEvent>;
  /** The events' ids in the order they were first sent. */
  eventIds: string[];
  answers: Record<Kind, Map<number, number>>;
  /** The user id GET /users/me answered, by subject. */
  userIds: Map<string, string>;
  duplicatesSent: number;
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

/** A new event for the traffic: about a known user's subscription, a stranger's invoice, or a customer. */
function newEvent(traffic: Traffic, customers: Map<string, string>): string {
  const roll = Math.random();
  // Only the first half of the subjects get subscriptions, so the other half can keep checking out.
  const known = [...traffic.userIds.keys()].filter(
    (sub) => Number(sub.slice('load-'.length)) < SUBJECTS / 2,
  );
  let writes: string | null = null;
  let event;
  if (roll < 0.5 && known.length > 0) {
    const sub = pick(known);
    const subscription = subscriptionObject({
      customer: customers.get(sub)!,
      metadata: { user_id: traffic.userIds.get(sub)! },
      status: pick(STATUSES),
    });
    writes = subscription.id;
    event = eventOf(
      pick(['customer.subscription.created', 'customer.subscription.updated']),
      subscription,
    );
  } else if (roll < 0.75) {
    // The provider has never heard of this subscription: a re-read, then nothing to store.
    const subscription = subscriptionObject();
    event = eventOf('invoice.paid', invoiceObject(subscription.id, String(subscription.customer)));
  } else {
    event = eventOf('customer.created', {
      id: `cus_load_${traffic.eventIds.length}`,
      object: 'customer',
    });
  }
  traffic.events.set(event.id, {
    payload: JSON.stringify(event),
    writes,
    attempts: 0,
    outcomes: [],
  });
  traffic.eventIds.push(event.id);
  return event.id;
}

/** A webhook delivery: a repeat of an event already sent (one in five), or a new event. */
function delivery(traffic: Traffic, customers: Map<string, string>) {
  const ids = traffic.eventIds;
  let id: string;
  if (Math.random() < DUPLICATE_SHARE && ids.length > 0) {
    // Half the repeats are of the newest events, likely still in flight on the other process.
    id =
      Math.random() < 0.5
        ? ids[Math.max(0, ids.length - 1 - Math.floor(Math.random() * 5))]!
        : pick(ids);
    traffic.duplicatesSent += 1;
  } else {
    id = newEvent(traffic, customers);
  }
  const sent = traffic.events.get(id)!;
  sent.attempts += 1;
  return {
    id,
    method: 'POST',
    path: '/api/v1/webhooks/payments',
    headers: signedHeaders(sent.payload, SECRET),
    body: sent.payload,
  };
}

/** autocannon's request: 40 % users/me, 20 % checkout, 40 % webhook deliveries, answers counted. */
function mixedRequest(
  traffic: Traffic,
  tokens: Map<string, string>,
  customers: Map<string, string>,
): RequestSpec {
  const subjects = [...tokens.keys()];
  return {
    setupRequest(raw, context) {
      const roll = Math.random();
      if (roll < 0.6) {
        const sub = pick(subjects);
        const me = roll < 0.4;
        Object.assign(context, { kind: me ? 'me' : 'checkout', sub });
        const authorization = `Bearer ${tokens.get(sub)}`;
        return me
          ? {
              ...raw,
              method: 'GET',
              path: '/api/v1/users/me',
              headers: { authorization },
              body: undefined,
            }
          : {
              ...raw,
              method: 'POST',
              path: '/api/v1/billing/checkout',
              headers: { authorization, 'content-type': 'application/json' },
              body: '{}',
            };
      }
      const { id, ...request } = delivery(traffic, customers);
      Object.assign(context, { kind: 'webhook', event: id });
      return { ...raw, ...request };
    },
    onResponse(status, body, context) {
      const kind = context.kind as Kind;
      traffic.answers[kind].set(status, (traffic.answers[kind].get(status) ?? 0) + 1);
      if (status !== 200) return;
      if (kind === 'me')
        traffic.userIds.set(context.sub as string, (JSON.parse(body) as { id: string }).id);
      if (kind === 'webhook')
        traffic.events
          .get(context.event as string)!
          .outcomes.push((JSON.parse(body) as { status: string }).status);
    },
  };
}

/** Delivers again what the end of the run cut off, as the provider would retry it; their statuses. */
async function redeliverCutOff(url: string, events: Map<string, SentEvent>): Promise<number[]> {
  const statuses: number[] = [];
  for (const sent of events.values()) {
    if (sent.outcomes.length > 0) continue;
    sent.attempts += 1;
    const response = await fetch(`${url}/api/v1/webhooks/payments`, {
      method: 'POST',
      body: sent.payload,
      headers: signedHeaders(sent.payload, SECRET),
    });
    statuses.push(response.status);
    if (response.status === 200)
      sent.outcomes.push(((await response.json()) as { status: string }).status);
  }
  return statuses;
}

function memoryFigures(series: MemorySample[][]) {
  return series.map((samples, i) => {
    const rss = halves(samples, WARM_UP_MS, (s) => s.rssMb);
    const heap = halves(samples, WARM_UP_MS, (s) => s.heapMb);
    return {
      process: i + 1,
      samples: samples.length,
      rssMb: {
        afterWarmUp: +rss.early.toFixed(1),
        end: +rss.late.toFixed(1),
        max: +rss.max.toFixed(1),
      },
      heapFloorMb: {
        afterWarmUp: +heap.earlyFloor.toFixed(1),
        end: +heap.lateFloor.toFixed(1),
        max: +heap.max.toFixed(1),
      },
    };
  });
}

/** The load's subjects with their tokens, and a provider customer each. */
async function subjectsOf(t: TestApp) {
  const subjects = Array.from({ length: SUBJECTS }, (_, i) => `load-${i}`);
  const tokens = new Map(
    await Promise.all(subjects.map(async (sub) => [sub, await t.token(sub)] as const)),
  );
  // Subscription events name a customer the provider really has (the processes' simulators and the
  // test app's share the database), so a checkout after such an event still works.
  const stripe = simulatorClient(t);
  const customers = new Map<string, string>();
  for (const sub of subjects)
    customers.set(sub, (await stripe.customers.create({ email: `${sub}@example.com` })).id);
  return { tokens, customers };
}

/** What the database holds after the run: event records, writes per subscription, users per subject. */
async function readBack(db: TestApp['composition']['db']) {
  const recorded = new Set(
    // The portal configuration the services made at their start sends its own event: not the run's.
    (
      await db.query<{ id: string }>(
        "SELECT id FROM webhook_events WHERE type NOT LIKE 'billing_portal.configuration.%'",
      )
    ).map((row) => row.id),
  );
  const writes = new Map(
    (
      await db.query<{ subscription_id: string; n: number }>(
        'SELECT subscription_id, count(*)::int AS n FROM subscription_writes GROUP BY subscription_id',
      )
    ).map((r) => [r.subscription_id, r.n]),
  );
  const users = await db.query<{ idp_id: string; n: number }>(
    "SELECT idp_id, count(*)::int AS n FROM users WHERE idp_id LIKE 'load-%' GROUP BY idp_id",
  );
  return { recorded, writes, users };
}

/** The run the tests check: its traffic, autocannon's result, the database after it, memory. */
type Run = Awaited<ReturnType<typeof runLoad>>;

async function runLoad(t: TestApp, services: ServiceProcess[]) {
  const { tokens, customers } = await subjectsOf(t);
  const traffic: Traffic = {
    events: new Map(),
    eventIds: [],
    answers: { me: new Map(), checkout: new Map(), webhook: new Map() },
    userIds: new Map(),
    duplicatesSent: 0,
  };
  const memory = sampleMemory(
    services.map((s) => ({ pid: s.child.pid!, url: s.url })),
    2_000,
  );
  const result = await autocannon({
    url: services.map((s) => s.url),
    connections: CONNECTIONS,
    overallRate: RATE,
    duration: SECONDS,
    timeout: 10,
    requests: [mixedRequest(traffic, tokens, customers)],
  });
  await memory.stop();
  // The statuses of the deliveries the end of the run cut off, delivered again.
  const redelivered = await redeliverCutOff(services[0]!.url, traffic.events);
  const database = await readBack(t.composition.db);
  return { result, traffic, redelivered, ...database, memory: memoryFigures(memory.series) };
}

const deliveriesOf = (run: Run) =>
  [...run.traffic.events.values()].reduce((sum, sent) => sum + sent.outcomes.length, 0);

const statusesOf = (run: Run) =>
  Object.fromEntries(
    Object.entries(run.traffic.answers).map(([kind, counts]) => [kind, Object.fromEntries(counts)]),
  ) as Record<Kind, Record<string, number>>;

function printFigures(run: Run): void {
  const { result, traffic } = run;
  const figures = {
    seconds: result.duration,
    requests: result.requests.total,
    perSecond: Math.round(result.requests.average),
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    statuses: statusesOf(run),
    events: traffic.events.size,
    deliveries: deliveriesOf(run),
    duplicatesSent: traffic.duplicatesSent,
    unansweredAtEnd: run.redelivered.length,
    users: run.users.length,
    errors: result.errors,
    timeouts: result.timeouts,
  };
  console.log(`# load: ${JSON.stringify(figures)}`);
  console.log(
    `# memory after a ${WARM_UP_MS / 1000} s warm-up, first half vs second (RSS medians, heap floors): ${JSON.stringify(run.memory)}`,
  );
}

describe(
  `${SECONDS} s of users/me, checkout and webhooks (${DUPLICATE_SHARE * 100} % duplicates) at ${RATE} req/s on two service processes sharing PostgreSQL (PostgreSQL)`,
  { skip: !onPostgres && 'needs PostgreSQL' },
  () => {
    let t: TestApp;
    const services: ServiceProcess[] = [];
    let run: Run;
    before(async () => {
      t = await buildTestApp();
      await t.composition.db.exec(SUBSCRIPTION_WRITE_AUDIT);
      for (let i = 0; i < 2; i++) services.push(await startServiceProcess(t.env));
      run = await runLoad(t, services);
      printFigures(run);
    });
    after(async () => {
      await Promise.all(services.map((service) => service.stop()));
      await t?.close();
    });

    test('the load ran as described: the whole duration, with more than 15 % of deliveries repeating an event', () => {
      assert.ok(run.result.duration >= SECONDS - 1, `ran ${run.result.duration} s`);
      const deliveries = deliveriesOf(run);
      assert.ok(
        run.traffic.duplicatesSent / deliveries > 0.15,
        `duplicates were ${((100 * run.traffic.duplicatesSent) / deliveries).toFixed(1)} % of deliveries`,
      );
    });

    test('no failed connection, no timeout, no 5xx: only 200, and 409 or 429 for a checkout', () => {
      assert.equal(run.result.errors, 0, 'no failed connection');
      assert.equal(run.result.timeouts, 0, 'no request timed out');
      const unexpected = Object.entries(statusesOf(run)).flatMap(([kind, counts]) =>
        Object.entries(counts)
          .filter(
            ([status]) =>
              !(status === '200' || (kind === 'checkout' && ['409', '429'].includes(status))),
          )
          .map(([status, n]) => `${kind} ${status} x${n}`),
      );
      // A checkout may also meet 409 (the user's subscription is live) or the per-user limit's 429.
      assert.deepEqual(unexpected, [], 'only 200, and 409 or 429 for a checkout');
    });

    test('no lost event: each sent is recorded, processed at most once, and its effects applied once', () => {
      assert.deepEqual(
        run.redelivered.filter((status) => status !== 200),
        [],
        'every cut-off delivery delivered again is answered 200',
      );
      let cutOff = 0;
      for (const [id, sent] of run.traffic.events) {
        assert.ok(run.recorded.has(id), `event ${id} was sent and is not recorded`);
        const firsts = sent.outcomes.filter((outcome) => outcome !== 'duplicate').length;
        assert.ok(
          firsts <= 1,
          `event ${id} processed ${firsts} times: ${sent.outcomes.join(', ')}`,
        );
        // No first answer is only possible when the delivery that processed it was cut off by the end of the run.
        if (firsts === 0) {
          assert.ok(
            sent.attempts > sent.outcomes.length,
            `event ${id}: every delivery answered, none processed it`,
          );
          cutOff += 1;
        }
        if (sent.writes !== null)
          assert.equal(
            run.writes.get(sent.writes),
            1,
            `event ${id} applied ${run.writes.get(sent.writes) ?? 0} times`,
          );
      }
      assert.ok(
        cutOff <= CONNECTIONS,
        `${cutOff} events processed by deliveries whose answers were lost`,
      );
      assert.equal(
        run.recorded.size,
        run.traffic.events.size,
        'nothing recorded that was not sent',
      );
    });

    test('one user per subject, and one for every subject that got a profile', () => {
      assert.deepEqual(
        run.users.filter((u) => u.n !== 1),
        [],
        'one user per subject',
      );
      for (const sub of run.traffic.userIds.keys())
        assert.ok(
          run.users.some((u) => u.idp_id === sub),
          `${sub} got a profile and has no user`,
        );
    });

    test(`flat memory after warm-up: RSS within ${RSS_GROWTH_ALLOWED}x, the heap after GC within ${HEAP_FLOOR_GROWTH_ALLOWED}x`, () => {
      for (const figure of run.memory) {
        assert.ok(
          figure.rssMb.end <= figure.rssMb.afterWarmUp * RSS_GROWTH_ALLOWED,
          `process ${figure.process}: RSS grew from ${figure.rssMb.afterWarmUp} to ${figure.rssMb.end} MB`,
        );
        // The heap comes from the service's /metrics; without it, RSS alone decides.
        if (Number.isFinite(figure.heapFloorMb.afterWarmUp)) {
          assert.ok(
            figure.heapFloorMb.end <= figure.heapFloorMb.afterWarmUp * HEAP_FLOOR_GROWTH_ALLOWED,
            `process ${figure.process}: heap after GC grew from ${figure.heapFloorMb.afterWarmUp} to ${figure.heapFloorMb.end} MB`,
          );
        }
      }
    });
  },
);
