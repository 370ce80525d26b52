// The Config the service runs on, from settings the schema and the rules have passed: nothing here
// can fail, it only shapes what was checked.
import { resolve } from 'node:path';
import type {
  AppEventsConfig,
  Config,
  DatabaseConfig,
  IdentityConfig,
  MetricsConfig,
  OrganizationsConfig,
  PaymentsConfig,
} from './types.ts';
import {
  DEV_IDP_AUDIENCE,
  DEV_SERVICE_CLIENT,
  DEV_ORG_CLAIMS,
  DEV_ORG_ISSUER,
  IN_MEMORY,
  SIMULATOR_API_KEY,
  SIMULATOR_WEBHOOK_SECRET,
} from './defaults.ts';
import type { Offered } from './entitlements.ts';
import type { Settings } from './environment.ts';
import { durationMs, isLoopback } from './kinds.ts';
import { checkoutPrices, packPrices, tierPrices, trialEntries } from './lists.ts';

function database(settings: Settings, dataDir: string): DatabaseConfig {
  const { DATABASE_URL: url, DATABASE_POOL_SIZE: poolSize } = settings;
  if (url === IN_MEMORY) return { kind: 'pglite' };
  const preparedStatements = settings.DATABASE_PREPARED_STATEMENTS;
  if (url === undefined) return { kind: 'embedded', dataDir, poolSize };
  return {
    kind: 'postgres',
    url,
    poolSize,
    ...(preparedStatements !== undefined && { preparedStatements }),
  };
}

/** BILLING_SERVICE_CLIENTS; unset, the development identity provider's backend client alone. */
const serviceClients = (settings: Settings): string[] =>
  settings.BILLING_SERVICE_CLIENTS !== undefined
    ? settings.BILLING_SERVICE_CLIENTS.split(',').map((client) => client.trim())
    : settings.IDP_ISSUER === undefined
      ? [DEV_SERVICE_CLIENT]
      : [];

function identity(settings: Settings): IdentityConfig {
  const { IDP_ISSUER: issuer, IDP_AUDIENCE: audience, IDP_EMAIL_CLAIM: emailClaim } = settings;
  if (issuer === undefined)
    return { kind: 'dev', audience: audience ?? DEV_IDP_AUDIENCE, emailClaim };
  // A rule requires IDP_AUDIENCE with IDP_ISSUER.
  return {
    kind: 'oidc',
    issuer,
    audience: audience!,
    jwksUrl: settings.IDP_JWKS_URL ?? null,
    emailClaim,
  };
}

/**
 * Organisations are on when a claim names them: IDP_ORG_CLAIM, or with the development identity
 * provider the claims `npm run token -- --org <id> --role <role>` mints.
 */
function organizations(settings: Settings, tiers: string[]): OrganizationsConfig | null {
  const dev = settings.IDP_ISSUER === undefined;
  const given = settings.IDP_ORG_CLAIM;
  if (given === undefined && !dev) return null;
  return {
    claim: given ?? DEV_ORG_CLAIMS.organization,
    roleClaim: settings.IDP_ORG_ROLE_CLAIM ?? (given === undefined ? DEV_ORG_CLAIMS.role : null),
    issuer: settings.IDP_ISSUER ?? DEV_ORG_ISSUER,
    managerRoles: settings.BILLING_ORG_MANAGER_ROLES,
    plan: settings.BILLING_ORG_PLAN ?? tiers.at(-1)!,
    seats: {
      mode: settings.BILLING_SEATS,
      activeDays: settings.BILLING_SEAT_ACTIVE_DAYS,
      minimum: settings.BILLING_SEAT_MINIMUM,
    },
  };
}

function payments(settings: Settings): PaymentsConfig {
  const apiKey = settings.PAYMENTS_API_KEY;
  if (apiKey === undefined)
    return {
      kind: 'simulator',
      apiKey: SIMULATOR_API_KEY,
      simulatorHost: settings.PAYMENTS_SIMULATOR_HOST,
      simulatorPort: settings.PAYMENTS_SIMULATOR_PORT,
      livemode: false,
    };
  const apiBase = settings.PAYMENTS_API_BASE ?? null;
  return { kind: 'stripe', apiKey, apiBase, livemode: apiKey.includes('_live_') };
}

/**
 * Where outbound events go: the application's endpoint; in development without one, the
 * service's own receiver (its secret, unless given, generated under DATA_DIR); else nowhere.
 */
function appEvents(settings: Settings): AppEventsConfig {
  const { APP_WEBHOOK_URL: url, APP_WEBHOOK_SECRET: secrets } = settings;
  // A rule requires APP_WEBHOOK_SECRET with APP_WEBHOOK_URL.
  if (url !== undefined) return { kind: 'application', url, secrets: secrets! };
  if (settings.NODE_ENV === 'development') return { kind: 'development', secrets: secrets ?? null };
  return { kind: 'off' };
}

/** Tier -> days of trial: `14` gives every tier 14 days, `pro=14` only pro. */
function trialDays(value: string | undefined, tiers: string[]): Map<string, number> {
  const entries = value === undefined ? [] : trialEntries(value);
  return new Map(
    entries.flatMap(({ tier, days }) =>
      (tier === null ? tiers : [tier]).map((each) => [each, days]),
    ),
  );
}

// /metrics shows the Node version and business counters: on its own listener (METRICS_PORT,
// loopback unless METRICS_HOST says), or on the API port when a token guards it, or, in
// development only, when the API port is loopback-only. Production needs a token or a port: the
// loopback API port is also what a reverse proxy on the same host forwards to.
function metrics(settings: Settings): MetricsConfig {
  const port = settings.METRICS_PORT ?? null;
  const token = settings.METRICS_TOKEN ?? null;
  const production = settings.NODE_ENV === 'production';
  const apiPort = port === null && (token !== null || (!production && isLoopback(settings.HOST)));
  const off =
    port !== null || apiPort
      ? null
      : production
        ? 'NODE_ENV=production needs METRICS_TOKEN or METRICS_PORT'
        : 'HOST is not loopback';
  return { port, host: settings.METRICS_HOST ?? '127.0.0.1', token, apiPort, off };
}

/** Names of this machine that development pages and token-less /metrics answer to (local-hosts.ts). */
const localNames = (appUrl: URL, host: string): string[] => [
  ...new Set([
    appUrl.hostname.replace(/^\[|\]$/g, ''),
    ...(host === '0.0.0.0' || host === '::' ? [] : [host]),
  ]),
];

const origins = (list: string[]): string[] => list.map((origin) => new URL(origin).origin);

export function buildConfig(settings: Settings, offered: Offered): Config {
  const s = settings;
  const catalog = tierPrices(s.BILLING_PRICES);
  const prices = checkoutPrices(catalog, s.BILLING_DEFAULT_INTERVAL);
  const appUrl = new URL(s.APP_URL ?? `http://127.0.0.1:${s.PORT === 0 ? 8000 : s.PORT}`);
  const dataDir = resolve(s.DATA_DIR);
  const interval = s.BILLING_RECONCILE_INTERVAL;
  return {
    nodeEnv: s.NODE_ENV,
    host: s.HOST,
    port: s.PORT,
    logLevel: s.LOG_LEVEL,
    dataDir,
    database: database(s, dataDir),
    identity: identity(s),
    organizations: organizations(s, [...prices.keys()]),
    serviceScope: s.BILLING_SERVICE_SCOPE,
    serviceClients: serviceClients(s),
    creditsScope: s.BILLING_CREDITS_SCOPE,
    creditPacks: packPrices(s.BILLING_CREDIT_PACKS, s.PAYMENTS_API_KEY === undefined),
    payments: payments(s),
    webhookSecrets: s.PAYMENTS_WEBHOOK_SECRET ?? [SIMULATOR_WEBHOOK_SECRET],
    prices,
    catalog,
    defaultInterval: s.BILLING_DEFAULT_INTERVAL,
    defaultPlan: s.BILLING_DEFAULT_PLAN ?? [...prices.keys()][0]!,
    appUrl: appUrl.href.replace(/\/$/, ''),
    allowedOrigins: origins(s.BILLING_ALLOWED_ORIGINS ?? [appUrl.origin]),
    webConcurrency: s.WEB_CONCURRENCY,
    graceDays: s.BILLING_GRACE_DAYS,
    trialDays: trialDays(s.BILLING_TRIAL_DAYS, [...prices.keys()]),
    trialRequiresCard: s.BILLING_TRIAL_REQUIRES_CARD,
    allowPromotionCodes: s.BILLING_ALLOW_PROMOTION_CODES,
    automaticTax: s.BILLING_AUTOMATIC_TAX,
    entitlements: offered.table,
    entitlementsFile: offered.file,
    checkoutRateLimit: s.BILLING_CHECKOUT_RATE_LIMIT,
    corsOrigins: origins(s.CORS_ALLOWED_ORIGINS ?? []),
    requestTimeoutMs: s.HTTP_REQUEST_TIMEOUT_MS,
    metrics: metrics(s),
    localNames: localNames(appUrl, s.HOST),
    reconcileEveryMs: interval === undefined ? null : durationMs(interval),
    appEvents: appEvents(s),
    retentionDays: {
      events: s.WEBHOOK_EVENT_RETENTION_DAYS,
      failures: s.WEBHOOK_FAILURE_RETENTION_DAYS,
    },
  };
}
