// GET /: the simulator's dashboard for a person (dashboard-view.ts), and what its buttons post:
// a lifecycle step of a subscription, through the same code as the /_sim controls (so the same
// signed events go out), and Resend of an event (same event id, as `stripe events resend`). Each
// click comes back to the dashboard with a notice that says what happened in words.
import type { FastifyPluginAsync } from 'fastify';
import type Stripe from 'stripe';
import { SUBSCRIPTION_ACTIONS } from '../api/controls.ts';
import type { SimContext } from '../context.ts';
import { AUTOMATIC } from '../events.ts';
import { nextCharge } from '../next-charge.ts';
import { sessionOffer } from '../objects/checkout.ts';
import { renderDashboard, type DashboardView, type EventLine } from './dashboard-view.ts';
import { refuseCrossSitePosts, sendPage } from './layout.ts';
import { adjustmentsOf } from '../objects/offers.ts';
import { describeChange, describeEvents, noticeOf } from './notices.ts';
import { listPayments } from './payments-panel.ts';
import { settingsRoutes } from './settings-panel.ts';

type Listed = Omit<DashboardView, 'settings' | 'baseUrl' | 'webhookUrl' | 'notice'>;

/** What the dashboard lists: the newest of each kind. */
async function listed(ctx: SimContext): Promise<Listed> {
  const page = { limit: 50 };
  const subscriptions = (
    await ctx.docs.list<Stripe.Subscription>('subscription', {}, page)
  ).data.map((r) => r.data);
  const customers = (await ctx.docs.list<Stripe.Customer>('customer', {}, { limit: 100 })).data.map(
    (r) => r.data,
  );
  const open = (
    await ctx.docs.list<Stripe.Checkout.Session>(
      'checkout.session',
      { status: ['open'] },
      { limit: 20 },
    )
  ).data;
  const sessions = open.map((r) => r.data);
  const sessionCharges = new Map(
    await Promise.all(open.map(async (r) => [r.data.id, await sessionOffer(ctx.docs, r)] as const)),
  );
  const charges = new Map(
    await Promise.all(
      subscriptions.map(async (s) => [s.id, await nextCharge(ctx.docs, s)] as const),
    ),
  );
  const events = await ctx.db.query<EventLine>(
    'SELECT id, type, created::float8 AS created, delivered_at IS NOT NULL AS delivered, attempts, next_attempt_at::float8 AS next_attempt_at, last_response FROM sim_events ORDER BY seq DESC LIMIT 30',
  );
  // The plans, for the drift controls' switches: one-time prices are never a subscription's.
  const prices = (
    await ctx.docs.list<Stripe.Price>('price', { status: ['active'] }, { limit: 100 })
  ).data
    .map((r) => r.data)
    .filter((price) => price.type === 'recurring');
  const payments = await listPayments(ctx);
  return { subscriptions, charges, customers, sessions, sessionCharges, events, prices, payments };
}

export function dashboardRoutes(ctx: SimContext): FastifyPluginAsync {
  return async (app) => {
    app.addHook('preHandler', refuseCrossSitePosts);

    app.get<{ Querystring: { notice?: string } }>('/', async (request, reply) => {
      const body = renderDashboard({
        ...(await listed(ctx)),
        settings: ctx.settings,
        baseUrl: ctx.baseUrl,
        webhookUrl: ctx.webhookUrl(),
        notice: ctx.notices.read(request.query.notice),
      });
      return sendPage(reply, 200, { title: 'Payments Simulator', body });
    });

    app.post<{ Params: { id: string; action: string } }>(
      '/dashboard/subscriptions/:id/:action',
      async (request, reply) => {
        const { id, action: name } = request.params;
        const action = SUBSCRIPTION_ACTIONS[name];
        const notice = await noticeOf(async () => {
          if (action === undefined) return `Unknown action ${name}.`;
          const outcome = await action(ctx, id, AUTOMATIC);
          const adjustments = await adjustmentsOf(ctx.docs, outcome.value.subscription);
          return `${describeChange(name, outcome.value, adjustments)} ${await describeEvents(ctx, outcome)}`;
        });
        return reply.redirect(`/?notice=${ctx.notices.post(notice)}`, 303);
      },
    );

    app.post<{ Params: { id: string } }>('/dashboard/events/:id/resend', async (request, reply) => {
      const answer = await ctx.delivery.resend(request.params.id);
      const notice =
        answer === null
          ? `${request.params.id} will be sent again once the service listens.`
          : `Sent ${request.params.id} again (same event id): the service answered ${answer}.`;
      return reply.redirect(`/?notice=${ctx.notices.post(notice)}`, 303);
    });

    // Its switches post here too, refused across sites by the hook above.
    await app.register(settingsRoutes(ctx));
  };
}
