// What the scenarios run against: the issuer stand-in, the payment simulator, the baseline and
// the service, each a process of its own except the issuer (it only answers discovery and the
// JWKS once per server, so it lives in the benchmark's process).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEV_SERVICE_CLIENT } from '../../src/config/defaults.ts';
import { freePort } from '../../support/free-port.ts';
import { startOidcIssuer, type OidcTestIssuer } from '../../support/oidc-issuer.ts';
import {
  processTree,
  startNode,
  waitForHttp,
  type Managed,
  type StartOptions,
} from './processes.ts';
import type { WebhookState } from './webhook-state.ts';

export const WEBHOOK_SECRET = 'whsec_bench_0123456789abcdef';
export const API_KEY = 'sk_test_simulator';
export const PRICES = ['price_bench_pro', 'price_bench_team'] as const;
/** The tier each of PRICES sells. */
export const TIER_OF_PRICE = new Map<string, string>([
  [PRICES[0], 'pro'],
  [PRICES[1], 'team'],
]);
export const BILLING_PRICES = [...TIER_OF_PRICE]
  .map(([price, tier]) => `${tier}=${price}`)
  .join(',');

export interface Stack {
  databaseUrl: string;
  issuer: OidcTestIssuer;
  simulatorUrl: string;
  logsDir: string;
  dataDir: string;
}

export interface Server {
  name: string;
  url: string;
  managed: Managed;
  /** The serving processes (the primary and its workers under node:cluster). */
  pids(): number[];
  stop(): Promise<void>;
  /** Where its webhook events and subscription state are checked; absent: the bench database. */
  state?: WebhookState;
}

/** Only what a process needs: nothing of the caller's environment leaks into the measurement. */
function baseEnv(): Record<string, string> {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG'];
  return Object.fromEntries(
    keep.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]!]),
  );
}

/** RS256, as most identity providers sign (and as the floor's figures were taken). */
export async function startIssuer(): Promise<OidcTestIssuer> {
  return startOidcIssuer({ audience: 'api://billing-bench', algorithm: 'RS256' });
}

export async function startSimulator(
  databaseUrl: string,
  logsDir: string,
): Promise<{ url: string; managed: Managed }> {
  const port = await freePort();
  const managed = startNode({
    name: 'simulator',
    args: ['--import', 'tsx', 'bench/helpers/simulator.ts'],
    env: {
      ...baseEnv(),
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      PAYMENTS_API_KEY: API_KEY,
      PAYMENTS_WEBHOOK_SECRET: WEBHOOK_SECRET,
      BILLING_PRICES,
    },
    logFile: join(logsDir, 'simulator.log'),
    ipc: true,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/favicon.ico`, managed);
  return { url, managed };
}

/**
 * A server process of the stack: startNode's options, its log file named after it; up once
 * /healthz answers 200 (with `anyStatus`, once anything answers there).
 */
export async function serve(
  stack: Stack,
  { name, args, env, ipc, anyStatus }: Omit<StartOptions, 'logFile'> & { anyStatus?: boolean },
): Promise<Server> {
  const port = await freePort();
  const managed = startNode({
    name,
    args,
    env: { ...baseEnv(), ...env, PORT: String(port) },
    logFile: join(stack.logsDir, `${name.replace(/\W+/g, '-')}.log`),
    ipc,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/healthz`, managed, { anyStatus });
  return {
    name,
    url,
    managed,
    pids: () => processTree(managed.child.pid!),
    stop: () => managed.stop(),
  };
}

const profiling = (dir: string | undefined) => (dir ? ['--cpu-prof', '--cpu-prof-dir', dir] : []);

export function startBaseline(stack: Stack, cpuProfileDir?: string): Promise<Server> {
  return serve(stack, {
    name: 'baseline',
    args: [...profiling(cpuProfileDir), '--import', 'tsx', 'bench/baseline/server.ts'],
    env: {
      DATABASE_URL: stack.databaseUrl,
      IDP_ISSUER: stack.issuer.url,
      IDP_AUDIENCE: stack.issuer.audience,
      PAYMENTS_WEBHOOK_SECRET: WEBHOOK_SECRET,
      BILLING_PRICES,
      POOL_SIZE: '10',
    },
    ipc: true,
  });
}

export interface ServiceOptions {
  name: string;
  /** Default: the benchmark's PostgreSQL. */
  databaseUrl?: string;
  webConcurrency?: number;
  /** Default production; in-memory PGlite is refused there (a restart would lose everything). */
  nodeEnv?: 'production' | 'development';
  /** Writes a V8 CPU profile there when the service exits. */
  cpuProfileDir?: string;
  /** Further settings (APP_WEBHOOK_URL and its secret). */
  env?: Record<string, string>;
}

/** package.json's start script, `[exec] node [FLAGS] ENTRY`, split into its Node flags and its entry. */
function startCommand(): { flags: string[]; entry: string } {
  const { start } = (
    JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }
  ).scripts;
  const words = start
    .trim()
    .replace(/^exec\s+/, '')
    .split(/\s+/);
  if (words[0] !== 'node' || words.length < 2)
    throw new Error(
      `bench: cannot read package.json's start script as \`[exec] node [FLAGS] ENTRY\`: ${start}`,
    );
  return { flags: words.slice(1, -1), entry: words.at(-1)! };
}
const start = startCommand();

/**
 * What the service runs: by default the entry of `npm start`, built by buildService() as
 * `npm start` builds it. BENCH_SERVICE_ENTRY picks another: a .ts file (src/server.ts) runs
 * through tsx, anything else with plain node (and is not rebuilt).
 */
export const SERVICE_ENTRY = process.env.BENCH_SERVICE_ENTRY || start.entry;

/**
 * The Node flags the service gets: the start script's (a V8 heap setting), whatever the entry,
 * then BENCH_SERVICE_NODE_OPTIONS, on the command line rather than in NODE_OPTIONS so that they come
 * last and win over the start script's.
 */
export const SERVICE_NODE_FLAGS = [
  ...start.flags,
  ...(process.env.BENCH_SERVICE_NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean),
];

/** Builds dist/ with the script `npm start` runs first, unless BENCH_SERVICE_ENTRY says otherwise. */
export function buildService(): void {
  if (process.env.BENCH_SERVICE_ENTRY) return;
  const built = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  if (built.status !== 0)
    throw new Error(`scripts/build.mjs failed (exit ${built.status ?? built.signal})`);
}

/** The service's production environment, for its server and its commands (the replay). */
export function serviceEnv(stack: Stack, databaseUrl = stack.databaseUrl): Record<string, string> {
  return {
    ...baseEnv(),
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    DATA_DIR: stack.dataDir,
    DATABASE_URL: databaseUrl,
    IDP_ISSUER: stack.issuer.url,
    IDP_AUDIENCE: stack.issuer.audience,
    PAYMENTS_API_KEY: API_KEY,
    PAYMENTS_API_BASE: stack.simulatorUrl,
    PAYMENTS_WEBHOOK_SECRET: WEBHOOK_SECRET,
    BILLING_PRICES,
    // With IDP_ISSUER set no client is the application's backend until listed: the credits
    // scenario's service token is the development backend's (credits.ts).
    BILLING_SERVICE_CLIENTS: DEV_SERVICE_CLIENT,
  };
}

/** The service as `npm start` runs it in production: the built entry, NODE_ENV=production, info logs. */
export function startService(stack: Stack, options: ServiceOptions): Promise<Server> {
  return serve(stack, {
    name: options.name,
    args: [
      ...profiling(options.cpuProfileDir),
      ...SERVICE_NODE_FLAGS,
      ...(SERVICE_ENTRY.endsWith('.ts') ? ['--import', 'tsx'] : []),
      SERVICE_ENTRY,
    ],
    env: {
      ...serviceEnv(stack, options.databaseUrl),
      NODE_ENV: options.nodeEnv ?? 'production',
      WEB_CONCURRENCY: String(options.webConcurrency ?? 1),
      ...options.env,
    },
    ipc: false,
  });
}
