// Development only (registered with the embedded simulator): the `/billing` page, where a person
// signed in with a development token opens the billing portal. The token travels in a form body
// (never in a URL, so never in a log or the history), is verified as the API verifies it, and goes
// through the same PortalService as POST /api/v1/billing/portal; nothing of it is shown back.
// In production a front end calls that operation itself and sends the browser to the url.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { PortalService } from '../domain/billing/portal-service.ts';
import { DomainError } from '../domain/errors.ts';
import type { TokenVerifier } from '../domain/ports/token-verifier.ts';
import { statusOf } from '../http/error-handler.ts';
import { escapeHtml, HEADERS, page } from './billing-pages.ts';

const FORM = `<p>Open the billing portal to switch plan, cancel or resume your subscription, or update your card.</p>
<form method="post" action="/billing/portal"><label for="token">Your access token</label>
<input id="token" name="token" type="password" autocomplete="off" required>
<button type="submit">Open the billing portal</button></form>
<p><small>Development only: get a token with <code>npm run token -- --sub alice --email alice@example.com</code>.
A front end calls <code>POST /api/v1/billing/portal</code> with the user's token instead.</small></p>`;

/**
 * A form post from another site (CSRF). Browsers say so in Sec-Fetch-Site; without it, an Origin
 * naming another host. `Origin: null` is not taken as foreign: under `Referrer-Policy: no-referrer`
 * browsers send it for our own forms too.
 */
function crossSite(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') return site !== 'same-origin' && site !== 'none';
  const origin = request.headers.origin;
  if (origin === undefined || origin === 'null') return false;
  try {
    return new URL(origin).host !== request.headers.host;
  } catch {
    return true;
  }
}

export function billingPortalPages(portal: PortalService, verifier: TokenVerifier, simulatorUrl: string): FastifyPluginAsync {
  return async (app) => {
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_request, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );

    app.get('/billing', { schema: { hide: true } }, async (_request, reply) => reply.headers(HEADERS).send(page('Billing', FORM)));

    app.get('/billing/dashboard', { schema: { hide: true } }, async (_request, reply) => reply.redirect(`${simulatorUrl}/`, 303));

    app.post<{ Body: { token?: unknown } }>('/billing/portal', { schema: { hide: true } }, async (request, reply) => {
      if (crossSite(request)) return reply.status(403).headers(HEADERS).send(page('Forbidden', '<p>Cross-site form posts are refused.</p>'));
      try {
        const token = typeof request.body?.token === 'string' ? request.body.token.trim() : '';
        if (token === '') throw new DomainError('not_authenticated', 'Not authenticated');
        const { url } = await portal.open(await verifier.verify(token), {});
        return reply.redirect(url, 303);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        const status = statusOf(error);
        const hint = status === 401 ? ' Paste a token from <code>npm run token</code>.' : '';
        return reply.status(status).headers(HEADERS).send(page('Billing', `<p class="error">${escapeHtml(error.message)}.${hint}</p>${FORM}`));
      }
    });
  };
}
