// The Config the service runs on, shaped from settings the schema and the rules have passed:
// nothing here can fail. Its types are what these functions return.
import { resolve } from 'node:path';
import * as defaults from './defaults.ts';
import { appEvents, database, identity, organizations, payments } from './providers.ts';
import type { Offered } from './entitlements.ts';
import type { Settings } from './environment.ts';
import { durationMs, hostOf, isLoopback } from './kinds.ts';
import { checkoutPrices, packPrices, tierPrices, trialEntries } from './lists.ts';

/** Tier -> days of trial: `14` gives every tier 14 days, `pro=14` only pro. */
const trialDays = (value = '', tiers: string[]) =>
  new Map(
    trialEntries(value).flatMap(({ tier, days }) =>
      (tier === null ? tiers : [tier]).map((each) => [each, days] as const),
    ),
  );

// /metrics shows the Node version and business counters: on its own listener, or on the API port
// when a token guards it or, in development only, when that port is loopback-only (in production
// it is what a reverse proxy on the same host forwards to).
function metrics(s: Settings) {
  const [port, token] = [s.METRICS_PORT ?? null, s.METRICS_TOKEN ?? null];
  const production = s.NODE_ENV === 'production';
  const apiPort = port === null && (token !== null || (!production && isLoopback(s.HOST)));
  const off =
    port !== null || apiPort
      ? null
      : production
        ? 'NODE_ENV=production needs METRICS_TOKEN or METRICS_PORT'
        : 'HOST is not loopback';
  return { port, host: s.METRICS_HOST ?? '127.0.0.1', token, apiPort, off };
}

/** Names of this machine that development pages and token-less /metrics answer to. */
const localNames = (appUrl: URL, host: string) => [
  ...new Set([hostOf(appUrl), ...(host === '0.0.0.0' || host === '::' ? [] : [host])]),
];

const origins = (list: string[]) => list.map((origin) => new URL(origin).origin);

/** BILLING_SERVICE_CLIENTS; unset, the development identity provider's backend client alone. */
const serviceClients = (s: Settings) =>
  s.BILLING_SERVICE_CLIENTS?.split(',').map((client) => client.trim()) ??
  (s.IDP_ISSUER === undefined ? [defaults.DEV_SERVICE_CLIENT] : []);

export function buildConfig(s: Settings, offered: Offered) {
  const catalog = tierPrices(s.BILLING_PRICES);
  const prices = checkoutPrices(catalog, s.BILLING_DEFAULT_INTERVAL);
  const tiers = [...prices.keys()];
  const appUrl = new URL(s.APP_URL ?? `http://127.0.0.1:${s.PORT === 0 ? 8000 : s.PORT}`);
  const dataDir = resolve(s.DATA_DIR);
  return {
    nodeEnv: s.NODE_ENV,
    host: s.HOST,
    port: s.PORT,
    logLevel: s.LOG_LEVEL,
    dataDir,
    database: database(s, dataDir),
    identity: identity(s),
    organizations: organizations(s, tiers),
    serviceScope: s.BILLING_SERVICE_SCOPE,
    serviceClients: serviceClients(s),
    creditsScope: s.BILLING_CREDITS_SCOPE,
    creditPacks: packPrices(s.BILLING_CREDIT_PACKS, s.PAYMENTS_API_KEY === undefined),
    payments: payments(s),
    webhookSecrets: s.PAYMENTS_WEBHOOK_SECRET ?? [defaults.SIMULATOR_WEBHOOK_SECRET],
    /** Tier -> the price its checkout sells, in the order given; the first is the default plan. */
    prices: prices as ReadonlyMap<string, string>,
    catalog,
    defaultInterval: s.BILLING_DEFAULT_INTERVAL,
    defaultPlan: s.BILLING_DEFAULT_PLAN ?? tiers[0]!,
    appUrl: appUrl.href.replace(/\/$/, ''),
    allowedOrigins: origins(s.BILLING_ALLOWED_ORIGINS ?? [appUrl.origin]),
    webConcurrency: s.WEB_CONCURRENCY,
    graceDays: s.BILLING_GRACE_DAYS,
    trialDays: trialDays(s.BILLING_TRIAL_DAYS, tiers) as ReadonlyMap<string, number>,
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
    reconcileEveryMs:
      s.BILLING_RECONCILE_INTERVAL === undefined ? null : durationMs(s.BILLING_RECONCILE_INTERVAL),
    appEvents: appEvents(s),
    retentionDays: {
      events: s.WEBHOOK_EVENT_RETENTION_DAYS,
      failures: s.WEBHOOK_FAILURE_RETENTION_DAYS,
    },
  };
}

export type Config = ReturnType<typeof buildConfig>;
export type { DatabaseConfig, ReachableDatabaseConfig } from './providers.ts';
