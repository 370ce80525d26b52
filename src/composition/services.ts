// What the service builds on the adapters the root chose: the services the routes call and the
// HTTP settings (the background jobs are background-jobs.ts). The WebhookService is built here
// alone (operator commands replay events through it too).
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { HttpSettings, Services } from '../app.ts';
import type { Config } from '../config.ts';
import { checkMigrated } from '../adapters/database/migrate.ts';
import type { Database } from '../adapters/database/sql-client.ts';
import { createCachedVerifier } from '../adapters/identity/cached-verifier.ts';
import type { PrometheusMetrics } from '../adapters/metrics/prometheus.ts';
import type { Metrics } from '../domain/ports/metrics.ts';
import type { Tracing } from '../domain/ports/tracing.ts';
import { createStripeWebhookVerifier } from '../adapters/payments/stripe-events.ts';
import { CheckoutService } from '../domain/billing/checkout-service.ts';
import { PortalService } from '../domain/billing/portal-service.ts';
import type { PortalConfigurationId } from '../domain/billing/portal-configuration.ts';
import { SubscriptionSummaryService } from '../domain/billing/subscription-summary.ts';
import { Members } from '../domain/organizations/members.ts';
import { OrganizationBilling } from '../domain/organizations/organization-billing.ts';
import { SeatReports } from '../domain/seats/seat-reports.ts';
import type { PaymentsProvider } from '../domain/ports/payments-provider.ts';
import type { TokenVerifier } from '../domain/ports/token-verifier.ts';
import { UserService } from '../domain/users/user-service.ts';
import { WebhookService } from '../domain/webhooks/webhook-service.ts';
import type { DatabaseAdapters } from './database.ts';
import type { EventPolicy } from '../domain/events/subject-changes.ts';
import { entitlementsOf } from '../domain/billing/entitlements.ts';
import { CreditHolders } from '../domain/credits/credit-holders.ts';
import type { CreditsPolicy } from '../domain/credits/credit-packs.ts';
import { CreditSpends } from '../domain/credits/credit-spends.ts';
import { CreditsService } from '../domain/credits/credits-service.ts';
import { PackPrices } from '../domain/credits/pack-prices.ts';

/** The adapters a service is built from. */
export interface ServiceAdapters extends DatabaseAdapters {
  db: Database;
  metrics: Metrics;
  /** What /metrics reads; null where it is served nowhere (then `metrics` counts nothing). */
  scrape: PrometheusMetrics | null;
  payments: PaymentsProvider;
  logger: Logger;
  tracing: Tracing;
}

/** The packs for sale and each tier's grant, counted where metrics are read. */
export const creditsPolicy = (config: Config, metrics: Metrics): CreditsPolicy => ({
  packs: config.creditPacks,
  creditsOf: (tier) => entitlementsOf(tier, config.entitlements).credits,
  metrics,
});

/** What each pack costs, learnt from the provider (startUp checks the packs' prices). */
export const packPrices = (
  config: Config,
  { payments, logger }: Pick<ServiceAdapters, 'payments' | 'logger'>,
): PackPrices =>
  new PackPrices(payments, config.creditPacks, config.catalog[0]?.price ?? null, logger);

export function webhookService(
  config: Config,
  adapters: Pick<ServiceAdapters, 'ledger' | 'store' | 'payments' | 'metrics' | 'logger'> &
    Partial<Pick<ServiceAdapters, 'tracing'>>,
  policy: EventPolicy,
): WebhookService {
  const { ledger, store, payments, metrics, logger, tracing } = adapters;
  return new WebhookService({
    ledger,
    store,
    verifier: createStripeWebhookVerifier(config.webhookSecrets),
    payments,
    settings: config.payments,
    policy,
    credits: creditsPolicy(config, metrics),
    log: logger,
    metrics,
    tracing,
  });
}

function creditServices(
  config: Config,
  { store, payments, metrics }: ServiceAdapters,
  { members, policy, prices }: { members: Members; policy: EventPolicy; prices: PackPrices },
) {
  const holders = new CreditHolders(members, store, policy, {
    organizationIssuer: config.organizations?.issuer ?? null,
    defaultPlan: config.defaultPlan,
  });
  const credits = creditsPolicy(config, metrics);
  return {
    credits: new CreditsService({
      store,
      holders,
      payments,
      policy: credits,
      prices,
      settings: { ...config, managerRoles: config.organizations?.managerRoles ?? [] },
    }),
    creditSpends: new CreditSpends(store, holders, credits, metrics),
  };
}

export function routeServices(
  config: Config,
  adapters: ServiceAdapters,
  {
    verifier,
    policy,
    portalConfiguration,
    prices,
  }: {
    verifier: TokenVerifier;
    policy: EventPolicy;
    portalConfiguration: PortalConfigurationId;
    prices: PackPrices;
  },
): Services {
  const { db, store, payments, metrics, scrape } = adapters;
  const organizations = config.organizations;
  const members = new Members(
    store,
    organizations && {
      issuer: organizations.issuer,
      activeDays: organizations.seats.activeDays,
      countsSeats: organizations.seats.mode === 'active',
    },
  );
  const checkout = new CheckoutService({
    store,
    payments,
    settings: config,
    metrics,
    members,
    policy,
  });
  const portal = new PortalService(members, payments, { ...config, portalConfiguration });
  return {
    // Verified tokens are remembered (bounded, never past exp, at most 60 s): a client repeating its
    // token costs a hash, not a signature check. See cached-verifier.ts.
    verifier: createCachedVerifier(verifier),
    users: new UserService(members, policy),
    checkout,
    portal,
    summaries: new SubscriptionSummaryService(members, store.pendingChanges, policy, config),
    organizations: new OrganizationBilling({
      store,
      members,
      checkout,
      portal,
      policy,
      settings: { ...config, organizations },
    }),
    seatReports: new SeatReports(
      store,
      organizations && { issuer: organizations.issuer, mode: organizations.seats.mode },
    ),
    ...creditServices(config, adapters, { members, policy, prices }),
    webhooks: webhookService(config, adapters, policy),
    metrics,
    scrape,
    checkReady: () => checkMigrated(db),
  };
}

export function httpSettings(config: Config, { limitCounts }: DatabaseAdapters): HttpSettings {
  return {
    corsOrigins: config.corsOrigins,
    checkoutRateLimit: config.checkoutRateLimit,
    serviceAccess: { scope: config.serviceScope, clients: config.serviceClients },
    creditsAccess: { scope: config.creditsScope, clients: config.serviceClients },
    limitCounter: limitCounts,
    requestTimeoutMs: config.requestTimeoutMs,
    // Without a token the API port serves /metrics only on loopback in development: names of this machine only.
    metrics: {
      onApiPort: config.metrics.apiPort,
      token: config.metrics.token,
      localNames: config.localNames,
    },
  };
}

/** This process's name in the background jobs' leases: where it runs, its pid, and a nonce. */
export const instanceName = (): string =>
  `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
