// The load itself, generated in the benchmark's process (never in the server's): autocannon for
// the steady scenarios, and a plain node:http burst for S4's concurrent first requests.
import { request as httpRequest, Agent } from 'node:http';
import { createRequire } from 'node:module';

// autocannon ships no types; the part used here is typed locally (not as an ambient module, which
// would merge with any other declaration of it in the project).
export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface Request {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  setupRequest?: (request: RawRequest, context: Record<string, unknown>) => RawRequest | null;
  onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
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
  requests: Request[];
  overallRate?: number;
}) => Promise<AutocannonResult>;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface Measured {
  /** Responses received in the window. */
  requests: number;
  durationS: number;
  rps: number;
  p50: number;
  p99: number;
  /** Non-2xx responses plus connection errors and timeouts. */
  non2xx: number;
  /** Wall time of a burst (S4), ms. */
  wallMs?: number;
}

export interface CannonOptions {
  url: string;
  connections: number;
  durationS: number;
  request: Request;
  /** Requests per second offered in all, instead of as many as the server answers. */
  overallRate?: number;
}

export async function cannon(options: CannonOptions): Promise<Measured> {
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationS,
    timeout: 10,
    requests: [options.request],
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
  };
}

/** Rotates through the tokens, one per request: every connection asks as many users. */
export function rotatingBearer(tokens: readonly string[], path: string, method = 'GET', body?: string): Request {
  let next = 0;
  return {
    method,
    path,
    ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
    setupRequest(request) {
      request.headers = { ...request.headers, authorization: `Bearer ${tokens[next++ % tokens.length]}` };
      return request;
    },
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
          const req = httpRequest(url, { agent, headers: { authorization: `Bearer ${token}` } }, (response) => {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (text += chunk));
            response.on('end', () => {
              latencies[i] = performance.now() - sent;
              statuses[i] = response.statusCode ?? 0;
              bodies[i] = text;
              resolve();
            });
          });
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
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
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
