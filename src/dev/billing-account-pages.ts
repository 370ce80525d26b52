// Development only: `/billing`, where a person signed in with a development token
// (billing-session.ts) sees their tier in words and, through its forms (billing-forms.ts), starts a
// checkout and opens the billing portal with the same services as the API, so the whole loop runs
// in a browser alone. In production a front end calls those operations itself.
import type { FastifyPluginAsync } from 'fastify';
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
import { accountView } from './account-words.ts';
import { billingForms, domainRefusal, refusalPage } from './billing-forms.ts';
import { presentedToken, signIn } from './billing-session.ts';
import {
  escapeHtml,
  HEADERS,
  page,
  PORTAL_BUTTON,
  SIGN_IN,
  SIGN_OUT,
  START_CHECKOUT,
} from './page-layout.ts';

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
}

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
${status}${entitlementsHtml(summary)}<div class="actions">${buttons}</div>${SIGN_OUT}`;
}

export function billingAccountPages(services: BillingAccountServices): FastifyPluginAsync {
  return async (app) => {
    app.get('/billing', { schema: { hide: true } }, async (request, reply) => {
      if (presentedToken(request) === null)
        return reply.headers(HEADERS).send(page('Billing', SIGN_IN));
      try {
        const principal = await signIn(request, reply, services.verifier);
        return reply.headers(HEADERS).send(page('Billing', await accountPage(services, principal)));
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        return refusalPage(reply, domainRefusal(error));
      }
    });
    app.get('/billing/dashboard', { schema: { hide: true } }, async (_request, reply) =>
      reply.redirect(`${services.simulatorUrl}/`, 303),
    );
    await app.register(billingForms(services));
  };
}
