// What the scenarios run against: the issuer stand-in, the payment simulator, the baseline and
// the service, each a process of its own except the issuer (it only answers discovery and the
// JWKS once per server, so it lives in the benchmark's process).
import { join } from 'node:path';
import { startOidcIssuer, type OidcTestIssuer } from '../../test/helpers/oidc-issuer.ts';
import { freePort, processTree, startNode, waitForHttp, type Managed } from './processes.ts';

export const WEBHOOK_SECRET = 'whsec_bench_0123456789abcdef';
export const API_KEY = 'sk_test_simulator';
export const PRICES = ['price_bench_pro', 'price_bench_team'] as const;
export const BILLING_PRICES = `pro=${PRICES[0]},team=${PRICES[1]}`;

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
}

/** Only what a process needs: nothing of the caller's environment leaks into the measurement. */
function baseEnv(): Record<string, string> {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG'];
  return Object.fromEntries(keep.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]!]));
}

export async function startIssuer(): Promise<OidcTestIssuer> {
  return startOidcIssuer({ audience: 'api://billing-bench' });
}

export async function startSimulator(databaseUrl: string, logsDir: string): Promise<{ url: string; managed: Managed }> {
  const port = await freePort();
  const managed = startNode({
    name: 'simulator',
    args: ['--import', 'tsx', 'bench/helpers/simulator.ts'],
    env: { ...baseEnv(), DATABASE_URL: databaseUrl, PORT: String(port), PAYMENTS_API_KEY: API_KEY, PAYMENTS_WEBHOOK_SECRET: WEBHOOK_SECRET, BILLING_PRICES },
    logFile: join(logsDir, 'simulator.log'),
    ipc: true,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/favicon.ico`, managed);
  return { url, managed };
}

async function serve(name: string, args: string[], env: Record<string, string>, stack: Stack, ipc: boolean): Promise<Server> {
  const port = await freePort();
  const managed = startNode({ name, args, env: { ...baseEnv(), ...env, PORT: String(port) }, logFile: join(stack.logsDir, `${name.replace(/\W+/g, '-')}.log`), ipc });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/healthz`, managed);
  return { name, url, managed, pids: () => processTree(managed.child.pid!), stop: () => managed.stop() };
}

const profiling = (dir: string | undefined) => (dir ? ['--cpu-prof', '--cpu-prof-dir', dir] : []);

export function startBaseline(stack: Stack, cpuProfileDir?: string): Promise<Server> {
  return serve(
    'baseline',
    [...profiling(cpuProfileDir), '--import', 'tsx', 'bench/baseline/server.ts'],
    {
      DATABASE_URL: stack.databaseUrl,
      IDP_ISSUER: stack.issuer.url,
      IDP_AUDIENCE: stack.issuer.audience,
      PAYMENTS_WEBHOOK_SECRET: WEBHOOK_SECRET,
      BILLING_PRICES,
      POOL_SIZE: '10',
    },
    stack,
    true,
  );
}

export interface ServiceOptions {
  name: string;
  /** Default: the benchmark's PostgreSQL. */
  databaseUrl?: string;
  webConcurrency?: number;
  /** Writes a V8 CPU profile there when the service exits. */
  cpuProfileDir?: string;
}

/** The service as `npm start` runs it in production: src/server.ts, NODE_ENV=production, info logs. */
export function startService(stack: Stack, options: ServiceOptions): Promise<Server> {
  return serve(
    options.name,
    // BENCH_SERVICE_ENTRY: a built entry point (plain JavaScript) to run with node instead of tsx.
    [...profiling(options.cpuProfileDir), ...(process.env.BENCH_SERVICE_ENTRY ? [process.env.BENCH_SERVICE_ENTRY] : ['--import', 'tsx', 'src/server.ts'])],
    {
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      DATA_DIR: stack.dataDir,
      DATABASE_URL: options.databaseUrl ?? stack.databaseUrl,
      WEB_CONCURRENCY: String(options.webConcurrency ?? 1),
      IDP_ISSUER: stack.issuer.url,
      IDP_AUDIENCE: stack.issuer.audience,
      PAYMENTS_API_KEY: API_KEY,
      PAYMENTS_API_BASE: stack.simulatorUrl,
      PAYMENTS_WEBHOOK_SECRET: WEBHOOK_SECRET,
      BILLING_PRICES,
      // To try a V8 or Node flag on the service without editing package.json.
      ...(process.env.BENCH_SERVICE_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVICE_NODE_OPTIONS } : {}),
    },
    stack,
    false,
  );
}
