// The load itself, never generated in a server's process: wrk (wrk.ts) for the steady scenarios
// when it is installed, else autocannon in the benchmark's process, and always autocannon for a
// fixed offered rate (wrk has none); a plain node:http burst for S4's concurrent first requests.
import { randomBytes } from 'node:crypto';
import { request as httpRequest, Agent } from 'node:http';
import { createRequire } from 'node:module';
import { prepareWrk, WRK_INSTALLED } from './wrk.ts';

/** What a steady scenario sends: one request shape, with a part that varies per request. */
export interface Traffic {
  method: string;
  path: string;
  /** The same on every request. */
  headers?: Record<string, string>;
  /** The same on every request, unless `next` gives one. */
  body?: string;
  /** The next request's own header (a signature, a token) and body. */
  next?: () => Varying;
  /** How many distinct requests `next` gives before they may repeat (tokens); unbounded when absent. */
  distinct?: number;
  /** The answer body counted as expected (`{"status":"processed"}`); other answers are counted apart. */
  expect?: string;
  /** A mark in each body that the load generator replaces with a key of its own for every request. */
  unique?: string;
}

export interface Varying {
  header: readonly [name: string, value: string];
  body?: string;
}

export type Generator = 'autocannon' | 'wrk';

export interface Measured {
  /** Responses received in the window. */
  requests: number;
  durationS: number;
  rps: number;
  p50: number;
  p99: number;
  /** Non-2xx responses plus connection errors and timeouts. */
  non2xx: number;
  /** Wall time of a burst (S4) or of a command (the replay), ms. */
  wallMs?: number;
  /** Answers equal to the traffic's `expect`, and the others; absent without an `expect`. */
  answers?: { expected: number; other: number };
  /** What generated the load (S4's burst and the replay are plain node). */
  generator?: Generator;
}

export interface LoadOptions {
  url: string;
  connections: number;
  durationS: number;
  traffic: Traffic;
  /** Requests per second offered in all, instead of as many as the server answers (autocannon only). */
  overallRate?: number;
  /** The rate the server answered at before (its warm-up): wrk writes unique requests for more. */
  expectedRps?: number;
}

// autocannon ships no types; the part used here is typed locally (not as an ambient module, which
// would merge with any other declaration of it in the project).
interface AutocannonRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: { headers: Record<string, string>; body?: string }) => unknown;
  onResponse?: (status: number, body: string) => void;
}

interface AutocannonResult {
  latency: { p50: number; p99: number };
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
}

type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  timeout: number;
  requests: AutocannonRequest[];
  overallRate?: number;
}) => Promise<AutocannonResult>;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export async function cannon(options: LoadOptions): Promise<Measured> {
  const { traffic } = options;
  const answers = { expected: 0, other: 0 };
  const windowKey = randomBytes(6).toString('hex');
  let sent = 0;
  const request: AutocannonRequest = {
    method: traffic.method,
    path: traffic.path,
    ...(traffic.headers === undefined ? {} : { headers: traffic.headers }),
    ...(traffic.body === undefined ? {} : { body: traffic.body }),
    ...(traffic.next === undefined
      ? {}
      : {
          setupRequest(raw) {
            const varying = traffic.next!();
            raw.headers = { ...raw.headers, [varying.header[0]]: varying.header[1] };
            if (varying.body !== undefined) raw.body = varying.body;
            if (traffic.unique !== undefined)
              raw.body = raw.body?.replace(traffic.unique, `${windowKey}-${++sent}`);
            return raw;
          },
        }),
    ...(traffic.expect === undefined
      ? {}
      : {
          onResponse: (status, body) =>
            void (status === 200 && body === traffic.expect ? answers.expected++ : answers.other++),
        }),
  };
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationS,
    timeout: 10,
    requests: [request],
    ...(options.overallRate === undefined ? {} : { overallRate: options.overallRate }),
  });
  const responses = result['2xx'] + result.non2xx;
  return {
    requests: responses,
    durationS: result.duration,
    rps: responses / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors + result.timeouts,
    ...(traffic.expect === undefined ? {} : { answers }),
    generator: 'autocannon',
  };
}

/** Rotates through the tokens, one per request: every connection asks as many users. */
export function rotatingBearer(
  tokens: readonly string[],
  method: string,
  path: string,
  body?: string,
): Traffic {
  let next = 0;
  return {
    method,
    path,
    ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
    next: () => ({ header: ['authorization', `Bearer ${tokens[next++ % tokens.length]}`] }),
    distinct: tokens.length,
  };
}

export interface BurstResult extends Measured {
  statuses: number[];
  bodies: string[];
}

/** Sends one GET per token, all at once on separate connections; wall time from first send to last answer. */
export async function burst(url: string, tokens: readonly string[]): Promise<BurstResult> {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const latencies: number[] = [];
  const statuses: number[] = [];
  const bodies: string[] = [];
  const started = performance.now();
  await Promise.all(
    tokens.map(
      (token, i) =>
        new Promise<void>((resolve) => {
          const sent = performance.now();
          const req = httpRequest(
            url,
            { agent, headers: { authorization: `Bearer ${token}` } },
            (response) => {
              let text = '';
              response.setEncoding('utf8');
              response.on('data', (chunk: string) => (text += chunk));
              response.on('end', () => {
                latencies[i] = performance.now() - sent;
                statuses[i] = response.statusCode ?? 0;
                bodies[i] = text;
                resolve();
              });
            },
          );
          req.on('error', () => {
            latencies[i] = performance.now() - sent;
            statuses[i] = 0;
            bodies[i] = '';
            resolve();
          });
          req.end();
        }),
    ),
  );
  const wallMs = performance.now() - started;
  agent.destroy();
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
  return {
    requests: tokens.length,
    durationS: wallMs / 1000,
    rps: tokens.length / (wallMs / 1000),
    p50: at(0.5),
    p99: at(0.99),
    non2xx: statuses.filter((s) => s < 200 || s > 299).length,
    wallMs,
    statuses,
    bodies,
  };
}

/**
 * The steady load of one window: wrk when installed (its requests written now, before the window;
 * BENCH_LOAD=autocannon declines it),
 * autocannon otherwise and for a fixed offered rate. Call the result to run it.
 */
export function prepareLoad(options: LoadOptions): () => Promise<Measured> {
  return USE_WRK && options.overallRate === undefined ? prepareWrk(options) : () => cannon(options);
}

const USE_WRK = WRK_INSTALLED && process.env.BENCH_LOAD !== 'autocannon';
/** The generator of the steady windows, for the report. */
export const STEADY_GENERATOR: Generator = USE_WRK ? 'wrk' : 'autocannon';
