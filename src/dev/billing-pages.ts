// The pages the embedded defaults send a buyer back to (APP_URL is the service itself): they say
// what happened and, once the webhook has arrived, the new tier; each links to the billing page
// (billing-account-pages.ts), the simulator's dashboard and the API docs.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { tierOf, type TierPolicy } from '../domain/billing/tier.ts';
import type { Store } from '../domain/ports/store.ts';
import { escapeHtml, HEADERS, page, START_CHECKOUT } from './page-layout.ts';

// A session id as the provider mints them; anything else (NUL, say, which the database refuses) is a 422.
const SuccessQuery = Type.Object({
  session_id: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_]{1,255}$' })),
});

export function billingPages(store: Store, policy: TierPolicy): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Querystring: { session_id?: string } }>(
      '/billing/success',
      { schema: { hide: true, querystring: SuccessQuery } },
      async (request, reply) => {
        const sessionId = request.query.session_id ?? '';
        const userId = await store.checkoutSessions.userOf(sessionId);
        const user = userId === null ? null : await store.users.findById(userId);
        if (user === null)
          return reply
            .headers(HEADERS)
            .send(page('Payment received', '<p>We could not find this checkout session.</p>'));
        const tier = tierOf(user.subscription, policy);
        const waiting = tier === 'free';
        const body = waiting
          ? '<p>Thank you! Waiting for the payment provider to confirm your subscription…</p>'
          : `<p>Thank you! Your plan is now <span class="tier" id="tier">${escapeHtml(tier)}</span>.</p>`;
        return reply.headers(HEADERS).send(page('Payment received', body, waiting));
      },
    );
    app.get('/billing/cancel', { schema: { hide: true } }, async (_request, reply) =>
      reply
        .headers(HEADERS)
        .send(
          page(
            'Checkout cancelled',
            `<p>No payment was taken. You can start again at any time.</p>${START_CHECKOUT}`,
          ),
        ),
    );
  };
}
