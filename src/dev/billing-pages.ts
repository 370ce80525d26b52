// The pages the embedded defaults send a buyer back to (APP_URL is the service itself): they say
// what happened and, once the webhook has arrived, the new tier, and for a trial when it ends and
// what happens then; each links to the billing page (billing-account-pages.ts), the simulator's
// dashboard and the API docs.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { FREE_TIER, tierOf } from '../domain/billing/tier.ts';
import type { User } from '../domain/model/accounts.ts';
import type { Store } from '../domain/ports/store.ts';
import { trialWords, type AccountPolicy } from './account-words.ts';
import { HEADERS, page, paragraphs, START_CHECKOUT, tierHtml } from './page-layout.ts';

// A session id as the provider mints them; anything else (NUL, say, which the database refuses) is a 422.
const SuccessQuery = Type.Object({
  session_id: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_]{1,255}$' })),
});

/** The success page's title and body for the user the session was for, or null until the webhook is in. */
function outcome(user: User, policy: AccountPolicy): { title: string; body: string } | null {
  const tier = tierOf(user.subscription, policy);
  if (tier === FREE_TIER || user.subscription === null) return null;
  const plan = `<p>Thank you! Your plan is now ${tierHtml(tier, 'tier')}.</p>`;
  const { status, trialEnd, currentPeriodEnd } = user.subscription;
  if (status !== 'trialing') return { title: 'Payment received', body: plan };
  const words = trialWords(tier, trialEnd ?? currentPeriodEnd, policy);
  return {
    title: 'Your trial has started',
    body: `${plan}${paragraphs(words)}<p>Nothing was charged today.</p>`,
  };
}

export function billingPages(store: Store, policy: AccountPolicy): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Querystring: { session_id?: string } }>(
      '/billing/success',
      { schema: { hide: true, querystring: SuccessQuery } },
      async (request, reply) => {
        const sessionId = request.query.session_id ?? '';
        const userId = await store.checkoutSessions.userOf(sessionId);
        const user = userId === null ? null : await store.users.findById(userId);
        reply.headers(HEADERS);
        if (user === null)
          return page('Checkout complete', '<p>We could not find this checkout session.</p>');
        const done = outcome(user, policy);
        if (done !== null) return page(done.title, done.body);
        return page(
          'Checkout complete',
          '<p>Thank you! Waiting for the payment provider to confirm your subscription…</p>',
          true,
        );
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
