// What the browser tests share: Chromium as this machine has it (launched with the flags that keep
// it off the network), polling until the service agrees, and a development token for a service
// process started with `env` and its DATA_DIR.
import { chromium, type Browser } from 'playwright-core';
import { loadConfig } from '../../src/config.ts';
import {
  devIssuerUrl,
  loadOrCreateSigningKey,
  signToken,
} from '../../src/dev/identity-provider.ts';

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
