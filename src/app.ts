// buildApp: everything a request meets. server.ts and the tests call this same function, so the
// tests run the production settings (parsers, limits, error handling, serializers).
import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { PrometheusMetrics } from './adapters/metrics/prometheus.ts';
import type { Metrics } from './domain/ports/metrics.ts';
import type { ServiceAccess } from './domain/service-caller.ts';
import type { CheckoutService } from './domain/billing/checkout-service.ts';
import type { PortalService } from './domain/billing/portal-service.ts';
import type { SubscriptionSummaryService } from './domain/billing/subscription-summary.ts';
import type { OrganizationBilling } from './domain/organizations/organization-billing.ts';
import type { SeatReports } from './domain/seats/seat-reports.ts';
import type { TokenVerifier } from './domain/ports/token-verifier.ts';
import type { UserService } from './domain/users/user-service.ts';
import type { WebhookService } from './domain/webhooks/webhook-service.ts';
import { registerOpenApi } from './http/openapi.ts';
import { sharedLimitStore, type HitCounter } from './http/per-user-limit.ts';
import { billingSubscriptionRoutes } from './http/routes/billing-subscription.ts';
import { checkoutRoutes } from './http/routes/checkout.ts';
import { portalRoutes } from './http/routes/portal.ts';
import { organizationBillingRoutes } from './http/routes/organization-billing.ts';
import { seatRoutes } from './http/routes/seats.ts';
import { creditRoutes } from './http/routes/credits.ts';
import type { CreditSpends } from './domain/credits/credit-spends.ts';
import type { CreditsService } from './domain/credits/credits-service.ts';
import { healthRoutes } from './http/routes/health.ts';
import { metricsRoutes, observeRequests, type MetricsAccess } from './http/routes/metrics.ts';
import { usersRoutes } from './http/routes/users.ts';
import { webhookRoutes } from './http/routes/webhooks.ts';
import { NAMED_SCHEMAS } from './http/schemas.ts';
import { createFastify, type AppOptions } from './http/fastify.ts';

/** What the routes call. */
export interface Services {
  verifier: TokenVerifier;
  users: UserService;
  checkout: CheckoutService;
  portal: PortalService;
  summaries: SubscriptionSummaryService;
  organizations: OrganizationBilling;
  seatReports: SeatReports;
  credits: CreditsService;
  creditSpends: CreditSpends;
  webhooks: WebhookService;
  /** What the services count. */
  metrics: Metrics;
  /** What /metrics reads, every request timed there; null where /metrics is served nowhere. */
  scrape: PrometheusMetrics | null;
  /** Database answers and has every migration; throws otherwise. */
  checkReady(): Promise<void>;
}

/** What buildApp serves: the routes' services, the HTTP settings, and development-only routes. */
export interface AppParts {
  services: Services;
  http: HttpSettings;
  /** Development-only routes (the embedded identity provider's JWKS, say); empty in production. */
  devRoutes: FastifyPluginAsync[];
}

export interface HttpSettings {
  /** Origins allowed to call the API from a browser; empty turns CORS off. */
  corsOrigins: string[];
  checkoutRateLimit: number;
  /** The scope a backend's token needs to report seat counts. */
  /** Who is the application's backend (seat reports). */
  serviceAccess: ServiceAccess;
  /** Who may spend credits: the backend's clients, with the credits scope. */
  creditsAccess: ServiceAccess;
  /** Where the per-user limits are counted: the shared database, so every instance counts alike. */
  limitCounter: HitCounter;
  /** Longest a client may take to send a whole request (headers and body); then 408 and close. */
  requestTimeoutMs: number;
  /** /metrics on this port, and who may read it there; see config.ts. */
  metrics: { onApiPort: boolean } & MetricsAccess;
}

export async function buildApp(
  { services, http, devRoutes }: AppParts,
  options: AppOptions,
): Promise<FastifyInstance> {
  const app = createFastify({ ...options, requestTimeoutMs: http.requestTimeoutMs });
  // Timing every request costs a histogram update per request: not done when nothing can read it.
  if (services.scrape) observeRequests(app, services.scrape);
  for (const schema of NAMED_SCHEMAS) app.addSchema(schema);
  await registerOpenApi(app);
  if (http.corsOrigins.length > 0) await app.register(cors, { origin: http.corsOrigins });
  // Limits are declared per route (checkout, portal); nothing is limited by default.
  await app.register(rateLimit, { global: false, store: sharedLimitStore(http.limitCounter) });

  await app.register(healthRoutes(services.checkReady));
  if (http.metrics.onApiPort && services.scrape)
    await app.register(metricsRoutes(services.scrape, http.metrics));
  await app.register(usersRoutes(services.users, services.verifier), { prefix: '/api/v1' });
  await app.register(checkoutRoutes(services.checkout, services.verifier, http.checkoutRateLimit), {
    prefix: '/api/v1',
  });
  await app.register(portalRoutes(services.portal, services.verifier, http.checkoutRateLimit), {
    prefix: '/api/v1',
  });
  await app.register(billingSubscriptionRoutes(services.summaries, services.verifier), {
    prefix: '/api/v1',
  });
  await app.register(
    organizationBillingRoutes(services.organizations, services.verifier, http.checkoutRateLimit),
    { prefix: '/api/v1' },
  );
  await app.register(seatRoutes(services.seatReports, services.verifier, http.serviceAccess), {
    prefix: '/api/v1',
  });
  await app.register(
    creditRoutes({
      credits: services.credits,
      spends: services.creditSpends,
      verifier: services.verifier,
      access: http.creditsAccess,
      perUserPerMinute: http.checkoutRateLimit,
    }),
    { prefix: '/api/v1' },
  );
  await app.register(webhookRoutes(services.webhooks), { prefix: '/api/v1' });
  for (const plugin of devRoutes) await app.register(plugin);
  return app;
}
