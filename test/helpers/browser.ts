// What the browser tests share: Chromium as this machine has it (launched with the flags that keep
// it off the network), the service on its embedded defaults beside it, polling until the service
// agrees, and a development token for a service process started with `env` and its DATA_DIR.
import { mkdir, rm } from 'node:fs/promises';
import { after, before } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { freePort } from '../../support/free-port.ts';
import { loadConfig } from '../../src/config.ts';
import { devIssuerUrl, signToken } from '../../src/dev/identity-provider.ts';
import { loadOrCreateSigningKey } from '../../src/dev/signing-key.ts';
import { freshDataDir } from './data-dir.ts';
import { startServiceProcess, type ServiceProcess } from './service-process.ts';

export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });

export async function until<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function devToken(
  env: Record<string, string>,
  sub: string,
  email: string,
): Promise<string> {
  const config = loadConfig({ ...env });
  return signToken(await loadOrCreateSigningKey(env.DATA_DIR!), {
    sub,
    email,
    issuer: devIssuerUrl(config.host, config.port),
    audience: config.identity.audience,
  });
}

export interface BrowserStack {
  service: ServiceProcess;
  browser: Browser;
  env: Record<string, string>;
}

/**
 * In a suite: the service on `npm start`'s embedded defaults (with `extraEnv`) in a fresh
 * DATA_DIR, and Chromium, started before its tests and stopped after them; `artifacts` made for
 * the screenshots. The fields are set once the suite's `before` has run.
 */
export function embeddedServiceWithBrowser(
  name: string,
  artifacts: string,
  extraEnv: Record<string, string> = {},
): BrowserStack {
  const stack = {} as BrowserStack;
  const dataDir = freshDataDir(name);
  before(async () => {
    stack.env = {
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      PAYMENTS_SIMULATOR_PORT: String(await freePort()),
      DATABASE_URL: '',
      NODE_ENV: 'development',
      ...extraEnv,
    };
    stack.service = await startServiceProcess(stack.env);
    stack.browser = await launchChromium();
    await mkdir(artifacts, { recursive: true });
  });
  after(async () => {
    await stack.browser?.close();
    await stack.service?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });
  return stack;
}
