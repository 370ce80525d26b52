// Runs `src/cli/index.ts` as its own process, as an operator would, with a test app's environment.
// Resolves with the exit code and both streams, whatever the code.
import { execFile } from 'node:child_process';
import { tierPolicy } from '../../src/composition.ts';
import { bearer, type TestApp } from './app.ts';
import { nodeArgs } from './entry.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...nodeArgs('cli'), ...args],
      { env: { ...process.env, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * The environment for an operator command beside a test app: the app's, with the port its
 * composition's simulator took, which the commands needing the provider reach over HTTP (as they
 * reach the simulator inside a running service).
 */
export function operatorEnv(t: TestApp): Record<string, string> {
  return { ...t.env, PAYMENTS_SIMULATOR_PORT: new URL(t.composition.simulatorUrl!).port };
}

/** What the operator's commands (link-customer, reconcile, sync-user) are given, from a test app. */
export const operatorDeps = (t: TestApp) => ({
  store: t.composition.store,
  payments: t.composition.payments,
  policy: tierPolicy(t.config),
  log: t.composition.logger,
});

/** The tier /users/me reports for `sub`. */
export async function tierOf(t: TestApp, sub: string): Promise<string> {
  return (
    await t.app.inject({
      method: 'GET',
      url: '/api/v1/users/me',
      headers: bearer(await t.token(sub)),
    })
  ).json().tier;
}

/**
 * Checks out and pays on the simulator's hosted page while the service is not listening, so the
 * provider holds an active subscription that no webhook has told the service about.
 */
export async function payWhileUnreachable(t: TestApp, sub: string): Promise<void> {
  const checkout = await t.app.inject({
    method: 'POST',
    url: '/api/v1/billing/checkout',
    headers: bearer(await t.token(sub)),
    payload: {},
  });
  if (checkout.statusCode !== 200)
    throw new Error(`checkout answered ${checkout.statusCode}: ${checkout.body}`);
  const paid = await fetch(`${checkout.json().url}/pay`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  });
  if (paid.status !== 303) throw new Error(`paying answered ${paid.status}`);
}
