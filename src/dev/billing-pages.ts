// The pages the embedded defaults send a buyer back to (APP_URL is the service itself): they say
// what happened and, once the webhook has arrived, the new tier; each links to the billing page
// (where the portal opens, billing-portal-pages.ts), the simulator's dashboard and the API docs.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { tierOf, type TierPolicy } from '../domain/billing/tier.ts';
import type { Store } from '../domain/ports/store.ts';

export const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const LINKS = `<p class="links"><a href="/billing">Manage your subscription</a> · <a href="/billing/dashboard">Payments simulator dashboard</a> · <a href="/docs">API docs</a></p>`;

export function page(title: string, body: string, refresh = false): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
${refresh ? '<meta http-equiv="refresh" content="2">' : ''}
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1f2933}
h1{font-size:1.5rem}.tier{font-weight:600;color:#0b6e4f}.links{margin-top:2rem;font-size:.9rem}
input{width:100%;font:inherit;padding:.4rem;margin:.3rem 0 .8rem}</style></head>
<body><h1>${escapeHtml(title)}</h1>${body}${LINKS}</body></html>`;
}

export const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

// A session id as the provider mints them; anything else (NUL, say, which the database refuses) is a 422.
const SuccessQuery = Type.Object({ session_id: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_]{1,255}$' })) });

export function billingPages(store: Store, policy: TierPolicy): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Querystring: { session_id?: string } }>('/billing/success', { schema: { hide: true, querystring: SuccessQuery } }, async (request, reply) => {
      const sessionId = request.query.session_id ?? '';
      const userId = await store.checkoutSessions.userOf(sessionId);
      const user = userId === null ? null : await store.users.findById(userId);
      if (user === null) return reply.headers(HEADERS).send(page('Payment received', '<p>We could not find this checkout session.</p>'));
      const tier = tierOf(user.subscription, policy);
      const waiting = tier === 'free';
      const body = waiting
        ? '<p>Thank you! Waiting for the payment provider to confirm your subscription…</p>'
        : `<p>Thank you! Your plan is now <span class="tier" id="tier">${escapeHtml(tier)}</span>.</p>`;
      return reply.headers(HEADERS).send(page('Payment received', body, waiting));
    });
    app.get('/billing/cancel', { schema: { hide: true } }, async (_request, reply) =>
      reply.headers(HEADERS).send(page('Checkout cancelled', '<p>No payment was taken. You can start again at any time.</p>')),
    );
  };
}
