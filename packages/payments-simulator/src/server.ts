// The simulator's own Fastify instance: form bodies only (as Stripe), Stripe's error shape and
// Request-Id header, the API under /v1 (API key, Idempotency-Key), thin events under /v2 (API key)
// and the lifecycle controls under /_sim (API key; /_sim/drift for changes whose events are lost),
// and the pages a person uses (checkout, billing portal, dashboard) without a key. The API calls
// served are counted (call-counter.ts).
import Fastify, { type FastifyInstance } from 'fastify';
import { billingPortalRoutes } from './api/billing-portal.ts';
import { catalogRoutes } from './api/catalog.ts';
import { portalConfigurationRoutes } from './api/portal-configurations.ts';
import { checkoutSessionRoutes } from './api/checkout-sessions.ts';
import { controlRoutes } from './api/controls.ts';
import { driftControlRoutes } from './api/drift-controls.ts';
import { customerRoutes } from './api/customers.ts';
import { eventRoutes } from './api/events.ts';
import { paymentRoutes } from './api/payments.ts';
import { refundRoutes } from './api/refunds.ts';
import { subscriptionScheduleRoutes } from './api/subscription-schedules.ts';
import { subscriptionRoutes } from './api/subscriptions.ts';
import { v2EventRoutes } from './api/v2-events.ts';
import { apiKeyCheck } from './auth.ts';
import { onlyNamesOfThisMachine } from './host-check.ts';
import { CallCounter } from './call-counter.ts';
import { onClock } from './clock.ts';
import type { SimContext } from './context.ts';
import { registerStripeErrors } from './errors.ts';
import { API_VERSION } from './events.ts';
import { decodeForm } from './form.ts';
import { newId } from './ids.ts';
import { registerIdempotency } from './idempotency.ts';
import { checkoutPageRoutes } from './pages/checkout-page.ts';
import { dashboardRoutes } from './pages/dashboard.ts';
import { driftPanelRoutes } from './pages/drift-panel.ts';
import { paymentsPanelRoutes } from './pages/payments-panel.ts';
import { portalPageRoutes } from './pages/portal-page.ts';

/** Form bodies only, as Stripe takes them. */
function acceptFormBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      try {
        done(null, decodeForm(body as string));
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
}

const API_ROUTES = [
  customerRoutes,
  checkoutSessionRoutes,
  subscriptionRoutes,
  eventRoutes,
  catalogRoutes,
  billingPortalRoutes,
  portalConfigurationRoutes,
  subscriptionScheduleRoutes,
  paymentRoutes,
  refundRoutes,
];

/** /v1, /v2 and /_sim: each with the API key; /v1 and /v2 counted, /v1 with Idempotency-Key. */
async function registerApi(app: FastifyInstance, ctx: SimContext): Promise<void> {
  const checkKey = apiKeyCheck(ctx.apiKey);
  const calls = new CallCounter();
  await app.register(
    async (api) => {
      api.addHook('onRequest', async (request, reply) => {
        await checkKey(request);
        const version = request.headers['stripe-version'];
        reply
          .header('stripe-version', typeof version === 'string' ? version : API_VERSION)
          .header('cache-control', 'no-cache, no-store');
      });
      calls.register(api);
      registerIdempotency(api, ctx.db);
      for (const routes of API_ROUTES) await api.register(routes(ctx));
    },
    { prefix: '/v1' },
  );
  await app.register(
    async (v2) => {
      v2.addHook('onRequest', checkKey);
      calls.register(v2);
      await v2.register(v2EventRoutes(ctx));
    },
    { prefix: '/v2' },
  );
  await app.register(
    async (controls) => {
      controls.addHook('onRequest', checkKey);
      await controls.register(controlRoutes(ctx, calls));
      await controls.register(driftControlRoutes(ctx));
    },
    { prefix: '/_sim' },
  );
}

export async function buildSimulatorServer(
  ctx: SimContext,
  allowedHosts: readonly string[] = [],
): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, bodyLimit: 256 * 1024, genReqId: () => newId('req_', 14) });
  acceptFormBodies(app);
  registerStripeErrors(app, ctx.log);
  app.addHook('onRequest', onlyNamesOfThisMachine(allowedHosts));
  app.addHook('onRequest', async (request, reply) => {
    reply.header('request-id', request.id);
  });
  // After the body is read (its stream's callbacks would lose the context), before any handler.
  app.addHook('preHandler', (_request, _reply, done) => onClock(ctx.clock, done));
  await registerApi(app, ctx);
  await app.register(checkoutPageRoutes(ctx));
  await app.register(dashboardRoutes(ctx));
  await app.register(driftPanelRoutes(ctx));
  await app.register(paymentsPanelRoutes(ctx));
  await app.register(portalPageRoutes(ctx));
  app.get('/favicon.ico', async (_request, reply) => reply.status(204).send());
  return app;
}
