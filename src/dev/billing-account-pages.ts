// Development only: `/billing`, where a person signed in with a development token
// (billing-session.ts) sees their tier in words, starts a checkout and opens the billing portal,
// through the same services as the API, so the whole loop runs in a browser alone. In production a
// front end calls those operations itself.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply } from 'fastify';
import type { TierPolicy } from '../domain/billing/tier.ts';
import type { CheckoutService } from '../domain/billing/checkout-service.ts';
import type { PortalService } from '../domain/billing/portal-service.ts';
import type {
  SubscriptionSummary,
  SubscriptionSummaryService,
} from '../domain/billing/subscription-summary.ts';
import { DomainError } from '../domain/errors.ts';
import type { Principal } from '../domain/model.ts';
import type { TokenVerifier } from '../domain/ports/token-verifier.ts';
import type { UserService } from '../domain/users/user-service.ts';
import { statusOf } from '../http/error-handler.ts';
import { perUserLimit } from '../http/per-user-limit.ts';
import { accountView } from './account-words.ts';
import {
  forget,
  presentedSubject,
  presentedToken,
  refusalInWords,
  signIn,
} from './billing-session.ts';
import { crossSite, escapeHtml, HEADERS, page, START_CHECKOUT } from './page-layout.ts';

export interface BillingAccountServices {
  users: UserService;
  /** Checkouts and portal sessions one user may start a minute through these forms: the API's limit. */
  perUserPerMinute: number;
  checkout: CheckoutService;
  portal: PortalService;
  /** What GET /billing/subscription answers: the status and the tier's features and limits. */
  summaries: SubscriptionSummaryService;
  verifier: TokenVerifier;
  policy: TierPolicy;
  simulatorUrl: string;
  /** The development issuer, to say which one a refused token should have named. */
  issuer: string | null;
}

const SIGN_IN = `<p>Sign in with a development token to start a checkout or manage your subscription.</p>
<form method="post" action="/billing/portal"><label for="token">Your access token</label>
<input id="token" name="token" type="password" autocomplete="off" required>
<button type="submit" formaction="/billing/checkout">Start a checkout</button> <button type="submit">Open the billing portal</button></form>
<p><small>Development only: get a token with <code>npm run token -- --sub alice --email alice@example.com</code>
(it is made for this service, whatever its port). This browser keeps it until it closes.
A front end calls <code>POST /api/v1/billing/checkout</code> and <code>/portal</code> with the user's token instead.</small></p>`;

const postButton = (path: string, label: string) =>
  `<form method="post" action="${path}"><button type="submit">${label}</button></form>`;
const PORTAL_BUTTON = postButton('/billing/portal', 'Open the billing portal');

/** The tier's entitlements and the subscription's status, as GET /api/v1/billing/subscription says them. */
function entitlementsHtml(summary: SubscriptionSummary): string {
  const features = summary.features.length === 0 ? 'none' : summary.features.join(', ');
  const limits = Object.entries(summary.limits)
    .map(([name, limit]) => `${name} ${limit === null ? 'unlimited' : limit}`)
    .join(', ');
  const status = summary.subscription
    ? `<p>Subscription status: <span id="status">${escapeHtml(summary.subscription.status)}</span>.</p>`
    : '';
  return `${status}<p>Features: <span id="features">${escapeHtml(features)}</span>. Limits: <span id="limits">${escapeHtml(limits || 'none')}</span>.</p>`;
}

async function accountPage(
  services: BillingAccountServices,
  principal: Principal,
): Promise<string> {
  const view = accountView(await services.users.currentUser(principal), services.policy);
  const summary = await services.summaries.summary(principal);
  const status = view.status.map((line) => `<p>${escapeHtml(line)}</p>`).join('');
  const buttons = `${view.canCheckout ? START_CHECKOUT : ''}${view.canManage ? PORTAL_BUTTON : ''}`;
  return `<p>Signed in as <b>${escapeHtml(principal.idpId)}</b> (${escapeHtml(principal.email)}). Your tier: <span class="tier">${escapeHtml(view.tier)}</span>.</p>
${status}${entitlementsHtml(summary)}<div class="actions">${buttons}</div>${postButton('/billing/sign-out', 'Sign out')}`;
}

/** What `answer` replies; for an action the domain refuses, a page saying why and what next. */
async function unlessRefused(
  reply: FastifyReply,
  issuer: string | null,
  answer: () => Promise<FastifyReply>,
): Promise<FastifyReply> {
  try {
    return await answer();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const status = statusOf(error);
    const next =
      status === 401
        ? SIGN_IN
        : error.code === 'nothing_to_manage'
          ? START_CHECKOUT
          : error.code === 'subscription_active'
            ? PORTAL_BUTTON
            : '';
    const words = status === 401 ? refusalInWords(error, issuer) : `${error.message}.`;
    return reply
      .status(status)
      .headers(HEADERS)
      .send(page('Billing', `<p class="error">${escapeHtml(words)}</p>${next}`));
  }
}

/** Form bodies parsed; a cross-site post refused before anything else, so it costs its target nothing. */
function acceptSameSiteForms(app: FastifyInstance): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 16 * 1024 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'POST' && crossSite(request))
      return reply
        .status(403)
        .headers(HEADERS)
        .send(page('Forbidden', '<p>Cross-site form posts are refused.</p>'));
  });
}

/** A form post that acts for the signed-in person and sends the browser to the provider's page. */
interface ProviderPageForm {
  path: string;
  /** The API operation whose per-user limit the form shares. */
  operation: 'checkout' | 'portal';
  /** Opens the provider's page (a checkout, the billing portal) for the person. */
  open: (principal: Principal) => Promise<{ url: string }>;
}

function redirectToProviderPage(
  app: FastifyInstance,
  services: BillingAccountServices,
  { path, operation, open }: ProviderPageForm,
): void {
  const config = perUserLimit(operation, services.perUserPerMinute, presentedSubject);
  app.post(path, { schema: { hide: true }, config }, async (request, reply) =>
    unlessRefused(reply, services.issuer, async () => {
      const { url } = await open(await signIn(request, reply, services.verifier));
      return reply.redirect(url, 303);
    }),
  );
}

export function billingAccountPages(services: BillingAccountServices): FastifyPluginAsync {
  return async (app) => {
    acceptSameSiteForms(app);
    app.get('/billing', { schema: { hide: true } }, async (request, reply) => {
      if (presentedToken(request) === null)
        return reply.headers(HEADERS).send(page('Billing', SIGN_IN));
      return unlessRefused(reply, services.issuer, async () => {
        const principal = await signIn(request, reply, services.verifier);
        return reply.headers(HEADERS).send(page('Billing', await accountPage(services, principal)));
      });
    });
    app.get('/billing/dashboard', { schema: { hide: true } }, async (_request, reply) =>
      reply.redirect(`${services.simulatorUrl}/`, 303),
    );
    redirectToProviderPage(app, services, {
      path: '/billing/portal',
      operation: 'portal',
      open: (principal) => services.portal.open(principal, {}),
    });
    redirectToProviderPage(app, services, {
      path: '/billing/checkout',
      operation: 'checkout',
      open: (principal) => services.checkout.start(principal, {}),
    });
    app.post('/billing/sign-out', { schema: { hide: true } }, async (_request, reply) => {
      forget(reply);
      return reply.redirect('/billing', 303);
    });
  };
}
