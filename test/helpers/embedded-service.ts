// The service on the embedded default, as `npm start` runs it on a laptop (no DATABASE_URL: the
// embedded PostgreSQL under DATA_DIR; the development identity provider; the payment simulator on
// a port of its own), for tests that start it as real processes, stop it and start it again.
import { execFile } from 'node:child_process';
import { bearer } from './app.ts';
import { runCli } from './cli.ts';
import { freshDataDir } from './data-dir.ts';
import { freePort } from '../../support/free-port.ts';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { nodeArgs } from './entry.ts';

export async function embeddedDataDir(): Promise<string> {
  return freshDataDir('billing-embedded');
}

/** PORT 0 for every process, so tokens the CLI signs name the issuer the service expects. */
export async function embeddedEnv(dataDir: string): Promise<Record<string, string>> {
  return {
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    PORT: '0',
    PAYMENTS_SIMULATOR_PORT: String(await freePort()),
  };
}

/** A token for `sub`, printed by the operator CLI's `token` command. */
export async function cliToken(env: Record<string, string>, sub: string): Promise<string> {
  const run = await runCli(['token', '--sub', sub, '--email', `${sub}@example.com`], env);
  if (run.code !== 0) throw new Error(`token: ${run.stderr}`);
  return run.stdout.trim();
}

export async function profile(
  url: string,
  token: string,
): Promise<{ id: string; tier: string; created_at: string }> {
  const response = await fetch(`${url}/api/v1/users/me`, { headers: bearer(token) });
  if (response.status !== 200)
    throw new Error(`/users/me answered ${response.status}: ${await response.text()}`);
  return response.json() as Promise<{ id: string; tier: string; created_at: string }>;
}

export interface Exited {
  code: number | null;
  stderr: string;
}

/** Runs src/server.ts to its end (for one that must refuse to start), at most 60 s. */
export function runServiceToExit(env: Record<string, string>): Promise<Exited> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      nodeArgs('server'),
      { env: { ...process.env, ...env, LOG_LEVEL: 'warn' }, timeout: 60_000 },
      (error, _stdout, stderr) => {
        resolve({
          code: error === null ? 0 : typeof error.code === 'number' ? error.code : null,
          stderr,
        });
      },
    );
  });
}

/**
 * Stops the embedded PostgreSQL a killed service left running on `dataDir` (a test's teardown,
 * before it removes the directory): a server whose data was deleted would run on, unseen.
 */
export async function stopLeftoverPostgres(dataDir: string): Promise<void> {
  const pid = Number.parseInt(
    await readFile(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').catch(() => ''),
    10,
  );
  if (!Number.isInteger(pid) || pid <= 0) return;
  try {
    process.kill(pid, 'SIGQUIT');
  } catch {
    // gone already
  }
}
