// wrk (Debian's package) as the load generator when it is on PATH: C on threads of its own, much
// cheaper per request than autocannon in the benchmark's Node process, so more of the two cores
// is left to the servers. What varies per request (a signature and its event, a token) is written
// to a file before the window opens, one request a line (a body's line breaks as \x01, which JSON
// text never holds), and wrk-requests.lua cycles through it; a key that must differ on every
// request (a spend's idempotency key) is written there as a mark the script replaces as it sends.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadOptions, Measured } from './load.ts';

export const WRK_INSTALLED = spawnSync('wrk', ['--version']).error === undefined;

const SCRIPT = join(import.meta.dirname, 'wrk-requests.lua');
/** One thread, as the floor's measurements use: the rest of the machine is left to the servers. */
const THREADS = 1;
/**
 * Unique requests written per second of window, at least; for a server that answered faster in
 * its warm-up, twice that rate, so that none repeats. A warm-up on a busy machine can run at half
 * the rate of the round after it: the service has answered 9,000 new events a second in a round.
 */
const MOST_REQUESTS_PER_SECOND = 12_000;
const RATE_MARGIN = 2;

interface WrkResult {
  requests: number;
  durationUs: number;
  p50Us: number;
  p99Us: number;
  non2xx: number;
  errors: number;
  expected: number;
  other: number;
}

/** Writes the requests, then returns the run itself (so the window measures wrk only). */
export function prepareWrk(options: LoadOptions): () => Promise<Measured> {
  const { traffic } = options;
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  const file = join(dir, 'requests.tsv');
  // wrk takes whole seconds.
  const seconds = Math.max(1, Math.round(options.durationS));
  const perSecond = Math.max(MOST_REQUESTS_PER_SECOND, RATE_MARGIN * (options.expectedRps ?? 0));
  const count =
    traffic.next === undefined
      ? 1
      : Math.max(THREADS, traffic.distinct ?? Math.ceil(seconds * perSecond));
  // Line by line: a long window's requests can exceed the longest string V8 makes.
  const out = openSync(file, 'w');
  for (let i = 0; i < count; i++) {
    const varying = traffic.next?.();
    const body = (varying?.body ?? traffic.body ?? '').replaceAll('\n', '\x01');
    writeSync(out, `${varying?.header[0] ?? ''}\t${varying?.header[1] ?? ''}\t${body}\n`);
  }
  closeSync(out);
  const headers = Object.entries(traffic.headers ?? {}).flatMap(([name, value]) => [
    '-H',
    `${name}: ${value}`,
  ]);
  return async () => {
    try {
      const child = spawn(
        'wrk',
        [
          '-t',
          String(THREADS),
          '-c',
          String(options.connections),
          '-d',
          `${seconds}s`,
          '--timeout',
          '10s',
          '-s',
          SCRIPT,
          ...headers,
          `${options.url}${traffic.path}`,
        ],
        {
          env: {
            ...process.env,
            WRK_REQUESTS: file,
            WRK_EXPECT: traffic.expect ?? '',
            WRK_THREADS: String(THREADS),
            WRK_METHOD: traffic.method,
            // A mark in the bodies, replaced per request by this window's prefix, the thread and a count.
            WRK_UNIQUE: traffic.unique ?? '',
            WRK_UNIQUE_PREFIX: randomBytes(6).toString('hex'),
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const [code] = (await once(child, 'close')) as [number | null];
      const line = /^WRK_RESULT (.*)$/m.exec(output)?.[1];
      if (code !== 0 || line === undefined)
        throw new Error(`wrk failed (exit ${code}): ${output.trim()}`);
      const result = JSON.parse(line) as WrkResult;
      const durationS = result.durationUs / 1e6;
      return {
        requests: result.requests,
        durationS,
        rps: result.requests / durationS,
        p50: result.p50Us / 1000,
        p99: result.p99Us / 1000,
        non2xx: result.non2xx + result.errors,
        ...(traffic.expect === undefined
          ? {}
          : { answers: { expected: result.expected, other: result.other } }),
        generator: 'wrk',
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}
