// Starts the real service (what test/helpers/entry.ts says runs it, or a given entry such as
// dist/server.mjs) as a separate process, for tests that need several instances sharing one
// PostgreSQL. Resolves once it listens, with its base URL.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { TestApp } from './app.ts';
import { nodeArgs } from './entry.ts';

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  /** Every line the service has logged so far. */
  output: string[];
  /** Those lines that are JSON log entries, parsed. */
  logged<Entry = LogEntry>(): Entry[];
  stop(): Promise<void>;
}

/** The fields of a pino line the tests read; any other field may be there too. */
export interface LogEntry {
  level?: number;
  msg?: string;
  pid?: number;
  reqId?: string;
  url?: string;
  req?: { url?: string };
  err?: { message?: string };
}

export interface ServiceProcessOptions {
  /** A JavaScript entry run instead of the service (e.g. dist/server.mjs, scripts/start.mjs). */
  entry?: string;
  /** A command the service runs under, e.g. `unshare --pid --fork` (the service is then its child). */
  prefix?: string[];
  /** `info` unless said otherwise (the test app's environment says `silent`). */
  logLevel?: string;
}

export async function startServiceProcess(
  env: Record<string, string>,
  { entry, logLevel = 'info', prefix = [] }: ServiceProcessOptions = {},
): Promise<ServiceProcess> {
  const entryArgs = entry === undefined ? nodeArgs('server') : [entry];
  const [command, ...args] = [...prefix, process.execPath, ...entryArgs];
  const child = spawn(command!, args, {
    env: { ...process.env, PORT: '0', ...env, LOG_LEVEL: logLevel },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const output: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    // Generous: a loaded 2-core CI machine can take long to start PGlite; a stuck child is killed.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('service did not start within 90 s'));
    }, 90_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output.push(line);
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
  });
  return {
    url,
    child,
    output,
    logged: <Entry>() =>
      output.flatMap((line) => {
        try {
          return [JSON.parse(line) as Entry];
        } catch {
          return [];
        }
      }),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/**
 * The environment of a service process beside the test app `t`: its database, and its simulator as
 * the provider, since instances share one real provider.
 */
export const besideTestApp = (t: TestApp): Record<string, string> => ({
  ...t.env,
  PAYMENTS_API_KEY: t.config.payments.apiKey,
  PAYMENTS_API_BASE: t.composition.simulatorUrl!,
  PAYMENTS_WEBHOOK_SECRET: 'whsec_local_simulator',
  BILLING_PRICES: 'pro=price_sim_pro,team=price_sim_team',
});

/**
 * Starts a process on each environment in turn, adding each to `services` once it listens: one
 * after the other, so that stopping `services` stops whichever did start when a later one fails.
 */
export async function startServiceProcesses(
  services: ServiceProcess[],
  envs: Record<string, string>[],
): Promise<void> {
  for (const env of envs) services.push(await startServiceProcess(env));
}
