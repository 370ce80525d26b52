// /v1/checkout/sessions: create (subscription mode, one recurring price; payment mode, one
// one-time price), retrieve, list (by customer, status, subscription or payment intent),
// line_items, expire. The session's `url` is the simulator's hosted page.
import type { FastifyPluginAsync } from 'fastify';
import type Stripe from 'stripe';
import { currentSession, expireSession } from '../checkout-flow.ts';
import type { SimContext } from '../context.ts';
import { noSuch } from '../errors.ts';
import { Expander } from '../expand.ts';
import type { FormObject } from '../form.ts';
import {
  buildSession,
  lineItemsOf,
  presentSession,
  type SessionExtra,
} from '../objects/checkout.ts';
import { allowOnly, expansions, oneOf, text } from '../params.ts';
import { nowSeconds } from '../time.ts';
import { readSessionParams } from './session-params.ts';
import { listOf, pageOfParams, PAGE_PARAMS, paramsOf, triggerOf } from './request.ts';

type Session = Stripe.Checkout.Session;

const LIST_PARAMS = [
  ...PAGE_PARAMS,
  'created',
  'customer',
  'customer_account',
  'customer_details',
  'payment_intent',
  'payment_link',
  'status',
  'subscription',
];

/** GET /v1/checkout/sessions: the page asked for, each session expired first if its time ran out. */
async function listSessions(
  ctx: SimContext,
  params: FormObject,
): Promise<{ data: Session[]; hasMore: boolean }> {
  allowOnly(params, LIST_PARAMS);
  const status = oneOf(params, 'status', ['open', 'complete', 'expired'] as const);
  const filter = {
    customer: text(params, 'customer'),
    // The one column holds what the session made: its subscription or its payment intent.
    ref: text(params, 'subscription') ?? text(params, 'payment_intent'),
    status: status === undefined ? undefined : [status],
  };
  const page = await ctx.docs.list<Session>('checkout.session', filter, pageOfParams(params));
  const now = nowSeconds();
  const data: Session[] = [];
  for (const { data: session } of page.data) {
    const current =
      session.status === 'open' && session.expires_at <= now
        ? ((await currentSession(ctx, session.id))?.data ?? session)
        : session;
    data.push(presentSession(current, ctx.baseUrl));
  }
  return { data, hasMore: page.hasMore };
}

export function checkoutSessionRoutes(ctx: SimContext): FastifyPluginAsync {
  return async (app) => {
    const expander = new Expander(ctx.docs, () => ctx.baseUrl);
    const present = (session: Session, params: FormObject) =>
      expander.expand(presentSession(session, ctx.baseUrl), expansions(params));
    const find = async (id: string) => {
      const stored = await currentSession(ctx, id);
      if (stored === null) throw noSuch('checkout.session', id);
      return stored;
    };

    app.post('/checkout/sessions', async (request) => {
      const params = paramsOf(request);
      const input = await readSessionParams(ctx.docs, params);
      const created = nowSeconds();
      const { session, extra } = buildSession({
        ...input,
        created,
        expiresAt: input.expiresAt ?? created + 86_400,
      });
      await ctx.docs.save('checkout.session', session, extra as unknown as Record<string, unknown>);
      return present(session, params);
    });

    app.get<{ Params: { id: string } }>('/checkout/sessions/:id', async (request) => {
      const params = paramsOf(request);
      allowOnly(params, ['expand']);
      return present((await find(request.params.id)).data, params);
    });

    app.get<{ Params: { id: string } }>('/checkout/sessions/:id/line_items', async (request) => {
      const params = paramsOf(request);
      allowOnly(params, [...PAGE_PARAMS]);
      const stored = await find(request.params.id);
      return expander.expand(
        await lineItemsOf(ctx.docs, stored.data, stored.extra as unknown as SessionExtra),
        expansions(params),
      );
    });

    app.post<{ Params: { id: string } }>('/checkout/sessions/:id/expire', async (request) => {
      const params = paramsOf(request);
      allowOnly(params, ['expand']);
      const { value } = await expireSession(ctx, request.params.id, triggerOf(request));
      return present(value, params);
    });

    app.get('/checkout/sessions', async (request) => {
      const params = paramsOf(request);
      const { data, hasMore } = await listSessions(ctx, params);
      return expander.expand(listOf('/v1/checkout/sessions', data, hasMore), expansions(params));
    });
  };
}
