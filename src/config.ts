// The one place that reads the environment. Every variable is parsed and checked here,
// so a bad setting stops start-up with one line naming it, never half-way through a request.
import { resolve } from 'node:path';
import type { EntitlementTable } from './domain/billing/entitlements.ts';
import { EntitlementsFileError, readEntitlementsFile } from './entitlements-file.ts';
import { projectPath } from './project-root.ts';

/** A database this process connects to as it is. */
export type ReachableDatabaseConfig =
  { kind: 'postgres'; url: string; poolSize: number } | { kind: 'pglite' }; // PGlite: in memory

/** Or the embedded PostgreSQL under DATA_DIR, which its owner starts first (adapters/database/open.ts). */
export type DatabaseConfig =
  ReachableDatabaseConfig | { kind: 'embedded'; dataDir: string; poolSize: number };

export type IdentityConfig =
  | { kind: 'dev'; audience: string; emailClaim: string }
  | { kind: 'oidc'; issuer: string; audience: string; jwksUrl: string | null; emailClaim: string };

export type PaymentsConfig =
  | {
      kind: 'simulator';
      apiKey: string;
      simulatorHost: string;
      simulatorPort: number;
      livemode: false;
    }
  | { kind: 'stripe'; apiKey: string; apiBase: string | null; livemode: boolean };

/** Where /metrics is served: on its own listener (port), or on the API port when apiPort is true. */
export interface MetricsConfig {
  port: number | null;
  host: string;
  /** Bearer token /metrics asks for; null: none. */
  token: string | null;
  apiPort: boolean;
  /** Why it is served nowhere, when it is not; null when it is. */
  off: string | null;
}

export interface Config {
  nodeEnv: 'production' | 'development' | 'test';
  host: string;
  port: number;
  logLevel: string;
  dataDir: string;
  database: DatabaseConfig;
  identity: IdentityConfig;
  payments: PaymentsConfig;
  webhookSecrets: string[];
  /** Tier name -> price id, in the order given; the first is the default plan. */
  prices: ReadonlyMap<string, string>;
  defaultPlan: string;
  appUrl: string;
  allowedOrigins: string[];
  webConcurrency: number;
  graceDays: number;
  /** Tier name -> days of trial its checkout offers (to a user who never had a subscription). */
  trialDays: ReadonlyMap<string, number>;
  /** false: a trial needs no card, and one that ends without a payment method cancels. */
  trialRequiresCard: boolean;
  allowPromotionCodes: boolean;
  automaticTax: boolean;
  /** What each tier may do; a tier missing has no features and no limits. */
  entitlements: EntitlementTable;
  /** Where the entitlements were read from; null: none. */
  entitlementsFile: string | null;
  /** Checkouts one user may start per minute, per instance. */
  checkoutRateLimit: number;
  /** Origins browsers may call the API from; empty: CORS off. */
  corsOrigins: string[];
  /** Longest a client may take to send a whole request, headers and body. */
  requestTimeoutMs: number;
  metrics: MetricsConfig;
  /** Host names, besides IP addresses and localhost, that development pages answer to. */
  localNames: string[];
  /** How often the service reconciles with the payment provider (one instance at a time); null: never. */
  reconcileEveryMs: number | null;
  /** Days an event's record, and a failure's, are kept. */
  retentionDays: { events: number; failures: number };
}

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** A value as shown in a message: JSON-quoted, so one with a line break keeps the message on one line. */
const quoted = (value: string): string => JSON.stringify(value);

/** The embedded payment simulator's own credentials: development only, refused in production. */
export const SIMULATOR_API_KEY = 'sk_test_simulator';
export const SIMULATOR_WEBHOOK_SECRET = 'whsec_local_simulator';
export const SIMULATOR_PRICES = 'pro=price_sim_pro,team=price_sim_team';
export const DEV_IDP_AUDIENCE = 'billing-service-dev';
/** The entitlements the embedded defaults use (the simulator and its own prices): an example to copy. */
export const EXAMPLE_ENTITLEMENTS_FILE = projectPath('config', 'entitlements.example.json');

function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
}

function integer(
  env: Env,
  name: string,
  { fallback, min, max }: { fallback: number; min: number; max: number },
): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max}, got ${quoted(raw)}`);
  }
  return Number(raw);
}

function httpUrl(name: string, raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an absolute http(s) URL, got ${quoted(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(name, `must be an absolute http(s) URL, got ${quoted(raw)}`);
  }
  return url;
}

function nodeEnv(env: Env): Config['nodeEnv'] {
  const value = text(env, 'NODE_ENV') ?? 'development';
  if (value !== 'production' && value !== 'development' && value !== 'test') {
    throw new ConfigError(
      'NODE_ENV',
      `must be production, development or test, got ${quoted(value)}`,
    );
  }
  return value;
}

function database(env: Env, dataDir: string, production: boolean): DatabaseConfig {
  const url = text(env, 'DATABASE_URL');
  const poolSize = () => integer(env, 'DATABASE_POOL_SIZE', { fallback: 10, min: 1, max: 500 });
  if (url === undefined) return { kind: 'embedded', dataDir, poolSize: poolSize() };
  if (url === 'memory://') {
    if (production)
      throw new ConfigError(
        'DATABASE_URL',
        'cannot be memory:// when NODE_ENV=production (everything would be lost on restart)',
      );
    return { kind: 'pglite' };
  }
  if (/^postgres(ql)?:\/\/[^/]/.test(url)) return { kind: 'postgres', url, poolSize: poolSize() };
  throw new ConfigError('DATABASE_URL', 'must be postgres://..., postgresql://... or memory://');
}

function identity(env: Env, production: boolean): IdentityConfig {
  const emailClaim = text(env, 'IDP_EMAIL_CLAIM') ?? 'email';
  const issuer = text(env, 'IDP_ISSUER');
  const audience = text(env, 'IDP_AUDIENCE');
  const jwksUrl = text(env, 'IDP_JWKS_URL');
  if (issuer === undefined) {
    if (production)
      throw new ConfigError(
        'IDP_ISSUER',
        'is required when NODE_ENV=production (the development identity provider is refused)',
      );
    if (jwksUrl !== undefined) throw new ConfigError('IDP_JWKS_URL', 'needs IDP_ISSUER to be set');
    return { kind: 'dev', audience: audience ?? DEV_IDP_AUDIENCE, emailClaim };
  }
  httpUrl('IDP_ISSUER', issuer);
  if (audience === undefined)
    throw new ConfigError('IDP_AUDIENCE', 'is required when IDP_ISSUER is set');
  if (jwksUrl !== undefined) httpUrl('IDP_JWKS_URL', jwksUrl);
  return { kind: 'oidc', issuer, audience, jwksUrl: jwksUrl ?? null, emailClaim };
}

function payments(env: Env, production: boolean): PaymentsConfig {
  const apiKey = text(env, 'PAYMENTS_API_KEY');
  const apiBase = text(env, 'PAYMENTS_API_BASE');
  if (apiBase !== undefined) httpUrl('PAYMENTS_API_BASE', apiBase);
  if (apiKey === undefined) {
    if (production)
      throw new ConfigError(
        'PAYMENTS_API_KEY',
        'is required when NODE_ENV=production (the payment simulator is refused)',
      );
    if (apiBase !== undefined)
      throw new ConfigError('PAYMENTS_API_BASE', 'needs PAYMENTS_API_KEY to be set');
    const simulatorPort = integer(env, 'PAYMENTS_SIMULATOR_PORT', {
      fallback: 12111,
      min: 0,
      max: 65535,
    });
    // Loopback whatever HOST says: the dashboard shows every customer's e-mail and cancel buttons.
    const simulatorHost = text(env, 'PAYMENTS_SIMULATOR_HOST') ?? '127.0.0.1';
    return {
      kind: 'simulator',
      apiKey: SIMULATOR_API_KEY,
      simulatorHost,
      simulatorPort,
      livemode: false,
    };
  }
  if (!/^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/.test(apiKey)) {
    throw new ConfigError(
      'PAYMENTS_API_KEY',
      'must be a secret or restricted key (sk_test_..., sk_live_..., rk_...)',
    );
  }
  return { kind: 'stripe', apiKey, apiBase: apiBase ?? null, livemode: apiKey.includes('_live_') };
}

function webhookSecrets(env: Env, paymentsConfig: PaymentsConfig, production: boolean): string[] {
  const raw = text(env, 'PAYMENTS_WEBHOOK_SECRET');
  if (raw === undefined) {
    if (paymentsConfig.kind === 'stripe')
      throw new ConfigError('PAYMENTS_WEBHOOK_SECRET', 'is required when PAYMENTS_API_KEY is set');
    return [SIMULATOR_WEBHOOK_SECRET];
  }
  const secrets = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (secrets.length === 0 || secrets.some((s) => !/^whsec_\S+$/.test(s))) {
    throw new ConfigError(
      'PAYMENTS_WEBHOOK_SECRET',
      'must be one or more comma-separated whsec_... secrets',
    );
  }
  // The simulator's secret is published in this repository: anyone could sign events with it.
  if (production && secrets.includes(SIMULATOR_WEBHOOK_SECRET)) {
    throw new ConfigError(
      'PAYMENTS_WEBHOOK_SECRET',
      `cannot be the simulator's published ${SIMULATOR_WEBHOOK_SECRET} when NODE_ENV=production`,
    );
  }
  return secrets;
}

function prices(env: Env, paymentsConfig: PaymentsConfig): Map<string, string> {
  const raw = text(env, 'BILLING_PRICES');
  if (raw === undefined && paymentsConfig.kind === 'stripe') {
    throw new ConfigError(
      'BILLING_PRICES',
      'is required when PAYMENTS_API_KEY is set (e.g. pro=price_123)',
    );
  }
  const result = new Map<string, string>();
  for (const entry of (raw ?? SIMULATOR_PRICES).split(',')) {
    const match = /^\s*([a-z][a-z0-9_-]*)\s*=\s*(price_[A-Za-z0-9_]+)\s*$/.exec(entry);
    if (!match)
      throw new ConfigError(
        'BILLING_PRICES',
        `must look like "pro=price_123,team=price_456", got ${quoted(entry.trim())}`,
      );
    const [, tier, priceId] = match as unknown as [string, string, string];
    if (tier === 'free')
      throw new ConfigError('BILLING_PRICES', 'cannot name a tier "free": it is the unpaid tier');
    if (result.has(tier)) throw new ConfigError('BILLING_PRICES', `names tier "${tier}" twice`);
    result.set(tier, priceId);
  }
  return result;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (raw !== 'true' && raw !== 'false')
    throw new ConfigError(name, `must be true or false, got ${quoted(raw)}`);
  return raw === 'true';
}

const TRIAL_DAYS = { min: 1, max: 730 };

/** BILLING_TRIAL_DAYS: `14` (every tier) or `pro=14,team=7`; unset: no trials. */
function trialDays(env: Env, tiers: ReadonlyMap<string, string>): Map<string, number> {
  const name = 'BILLING_TRIAL_DAYS';
  const raw = text(env, name);
  const result = new Map<string, number>();
  if (raw === undefined) return result;
  const days = (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < TRIAL_DAYS.min || Number(value) > TRIAL_DAYS.max)
      throw new ConfigError(
        name,
        `must be days from ${TRIAL_DAYS.min} to ${TRIAL_DAYS.max}, as "14" or "pro=14,team=7", got ${quoted(value)}`,
      );
    return Number(value);
  };
  if (!raw.includes('=')) {
    const every = days(raw);
    for (const tier of tiers.keys()) result.set(tier, every);
    return result;
  }
  for (const entry of raw.split(',')) {
    const match = /^\s*([^=\s]+)\s*=\s*(\S*)\s*$/.exec(entry);
    if (!match)
      throw new ConfigError(name, `must look like "pro=14,team=7", got ${quoted(entry.trim())}`);
    const [, tier, value] = match as unknown as [string, string, string];
    if (!tiers.has(tier))
      throw new ConfigError(
        name,
        `names ${quoted(tier)}, which is not a tier of BILLING_PRICES (${[...tiers.keys()].join(', ')})`,
      );
    if (result.has(tier)) throw new ConfigError(name, `names tier ${quoted(tier)} twice`);
    result.set(tier, days(value));
  }
  return result;
}

/**
 * BILLING_ENTITLEMENTS_FILE: unset, the embedded defaults (the simulator selling its own prices)
 * use the example file in the repository; otherwise there are none.
 */
function entitlements(
  env: Env,
  tiers: ReadonlyMap<string, string>,
  exampleDefault: boolean,
): { table: EntitlementTable; file: string | null } {
  const name = 'BILLING_ENTITLEMENTS_FILE';
  const given = text(env, name);
  const file =
    given !== undefined ? resolve(given) : exampleDefault ? EXAMPLE_ENTITLEMENTS_FILE : null;
  if (file === null) return { table: new Map(), file };
  try {
    return { table: readEntitlementsFile(file, [...tiers.keys()]), file };
  } catch (error) {
    if (error instanceof EntitlementsFileError) throw new ConfigError(name, error.message);
    throw error;
  }
}

function origins(env: Env, name: string, fallback: string[]): string[] {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  return raw.split(',').map((entry) => {
    const url = httpUrl(name, entry.trim());
    if (url.origin !== entry.trim().replace(/\/$/, '')) {
      throw new ConfigError(
        name,
        `must list bare origins like https://app.example.com, got ${quoted(entry.trim())}`,
      );
    }
    return url.origin;
  });
}

export const isLoopback = (host: string): boolean =>
  host === 'localhost' || host === '::1' || /^127\./.test(host);

/** Names of this machine that development pages and token-less /metrics answer to (local-hosts.ts). */
const localNames = (appUrl: URL, host: string): string[] => [
  ...new Set([
    appUrl.hostname.replace(/^\[|\]$/g, ''),
    ...(host === '0.0.0.0' || host === '::' ? [] : [host]),
  ]),
];

// /metrics shows the Node version and business counters: on its own listener (METRICS_PORT,
// loopback unless METRICS_HOST says), or on the API port when a token guards it, or, in
// development only, when the API port is loopback-only. Production needs a token or a port: the
// loopback API port is also what a reverse proxy on the same host forwards to.
function metrics(env: Env, apiHost: string, production: boolean): MetricsConfig {
  const port =
    text(env, 'METRICS_PORT') === undefined
      ? null
      : integer(env, 'METRICS_PORT', { fallback: 0, min: 0, max: 65535 });
  const token = text(env, 'METRICS_TOKEN') ?? null;
  if (token !== null && !/^[\x21-\x7e]{16,}$/.test(token))
    throw new ConfigError(
      'METRICS_TOKEN',
      'must be at least 16 printable characters without spaces',
    );
  const host = text(env, 'METRICS_HOST') ?? '127.0.0.1';
  if (port === null && text(env, 'METRICS_HOST') !== undefined)
    throw new ConfigError('METRICS_HOST', 'needs METRICS_PORT to be set');
  const apiPort = port === null && (token !== null || (!production && isLoopback(apiHost)));
  const off =
    port !== null || apiPort
      ? null
      : production
        ? 'NODE_ENV=production needs METRICS_TOKEN or METRICS_PORT'
        : 'HOST is not loopback';
  return { port, host, token, apiPort, off };
}

const DURATION_UNITS_MS: Record<string, number> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** A duration such as `30m`, `6h` or `1d` (s, m, h, d), in milliseconds; null when unset. */
function duration(env: Env, name: string, { minMs, maxMs }: { minMs: number; maxMs: number }) {
  const raw = text(env, name);
  if (raw === undefined) return null;
  const match = /^(\d+)\s*([smhd])$/.exec(raw);
  const ms = match ? Number(match[1]) * DURATION_UNITS_MS[match[2]!]! : NaN;
  if (!(ms >= minMs && ms <= maxMs))
    throw new ConfigError(
      name,
      `must be a duration from ${minMs / 1000}s to ${maxMs / 86_400_000}d such as 6h or 1d (units s, m, h, d), got ${quoted(raw)}`,
    );
  return ms;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevel(env: Env): string {
  const value = text(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(value))
    throw new ConfigError(
      'LOG_LEVEL',
      `must be one of ${LOG_LEVELS.join(', ')}, got ${quoted(value)}`,
    );
  return value;
}

export function loadConfig(env: Env = process.env): Readonly<Config> {
  const mode = nodeEnv(env);
  const production = mode === 'production';
  const port = integer(env, 'PORT', { fallback: 8000, min: 0, max: 65535 });
  const host = text(env, 'HOST') ?? '127.0.0.1';
  const dataDir = resolve(text(env, 'DATA_DIR') ?? './.data');
  const db = database(env, dataDir, production);
  const paymentsConfig = payments(env, production);
  const priceMap = prices(env, paymentsConfig);
  const defaultPlan = text(env, 'BILLING_DEFAULT_PLAN') ?? [...priceMap.keys()][0]!;
  if (!priceMap.has(defaultPlan)) {
    throw new ConfigError(
      'BILLING_DEFAULT_PLAN',
      `must be one of the tiers of BILLING_PRICES (${[...priceMap.keys()].join(', ')}), got ${quoted(defaultPlan)}`,
    );
  }
  const appUrl = httpUrl(
    'APP_URL',
    text(env, 'APP_URL') ?? `http://127.0.0.1:${port === 0 ? 8000 : port}`,
  );
  const webConcurrency = integer(env, 'WEB_CONCURRENCY', { fallback: 1, min: 1, max: 64 });
  if (webConcurrency > 1 && db.kind === 'pglite') {
    throw new ConfigError(
      'WEB_CONCURRENCY',
      'above 1 needs PostgreSQL, embedded (DATABASE_URL unset) or not: PGlite in memory is single-process',
    );
  }
  const offered = entitlements(
    env,
    priceMap,
    paymentsConfig.kind === 'simulator' && text(env, 'BILLING_PRICES') === undefined,
  );
  return Object.freeze({
    nodeEnv: mode,
    host,
    port,
    logLevel: logLevel(env),
    dataDir,
    database: db,
    identity: identity(env, production),
    payments: paymentsConfig,
    webhookSecrets: webhookSecrets(env, paymentsConfig, production),
    prices: priceMap,
    defaultPlan,
    appUrl: appUrl.href.replace(/\/$/, ''),
    allowedOrigins: origins(env, 'BILLING_ALLOWED_ORIGINS', [appUrl.origin]),
    webConcurrency,
    graceDays: integer(env, 'BILLING_GRACE_DAYS', { fallback: 7, min: 0, max: 365 }),
    checkoutRateLimit: integer(env, 'BILLING_CHECKOUT_RATE_LIMIT', {
      fallback: 20,
      min: 1,
      max: 10_000,
    }),
    corsOrigins: origins(env, 'CORS_ALLOWED_ORIGINS', []),
    requestTimeoutMs: integer(env, 'HTTP_REQUEST_TIMEOUT_MS', {
      fallback: 10_000,
      min: 1_000,
      max: 300_000,
    }),
    trialDays: trialDays(env, priceMap),
    trialRequiresCard: bool(env, 'BILLING_TRIAL_REQUIRES_CARD', true),
    allowPromotionCodes: bool(env, 'BILLING_ALLOW_PROMOTION_CODES', false),
    automaticTax: bool(env, 'BILLING_AUTOMATIC_TAX', false),
    entitlements: offered.table,
    entitlementsFile: offered.file,
    metrics: metrics(env, host, production),
    localNames: localNames(appUrl, host),
    reconcileEveryMs: duration(env, 'BILLING_RECONCILE_INTERVAL', {
      minMs: 10_000,
      maxMs: 30 * 86_400_000,
    }),
    retentionDays: {
      // Stripe can resend an event for 30 days after it was created: its record must outlive that,
      // so a resend is still answered as a duplicate.
      events: integer(env, 'WEBHOOK_EVENT_RETENTION_DAYS', { fallback: 35, min: 31, max: 3650 }),
      failures: integer(env, 'WEBHOOK_FAILURE_RETENTION_DAYS', { fallback: 30, min: 1, max: 3650 }),
    },
  });
}
