// Development only: `/billing`, where a person signed in with a development token
// (billing-session.ts) sees their account at once (tier and where it comes from, subscription in
// words, features and limits), and their organisation's when the token names one
// (billing-organization.ts), and through its forms (billing-forms.ts) starts a checkout and opens
// the billing portal with the same services as the API, so the whole loop runs in a browser alone.
// In production a front end calls those operations itself.
import type { FastifyPluginAsync } from 'fastify';
import type { SubscriptionSummary } from '../domain/billing/subscription-summary.ts';
import { tierRank } from '../domain/billing/tier.ts';
import { DomainError } from '../domain/errors.ts';
import type { Principal } from '../domain/model/callers.ts';
import { statusOf } from '../http/error-handler.ts';
import { accountView, planChangeWords, type AccountView } from './account-words.ts';
import { creditsSection } from './billing-credits.ts';
import { billingForms } from './billing-forms.ts';
import { organizationPages, organizationSection } from './billing-organization.ts';
import type { BillingAccountServices } from './billing-services.ts';
import {
  domainRefusalInWords,
  presentedToken,
  signIn,
  takeNotice,
  type Notice,
} from './billing-session.ts';
import {
  escapeHtml,
  HEADERS,
  page,
  paragraphs,
  PORTAL_BUTTON,
  SIGN_IN,
  SIGN_OUT,
  START_CHECKOUT,
  tierHtml,
} from './page-layout.ts';

/** What a checkout would sell now, said beside "no subscription" (GET /billing/subscription's plan). */
const nextCheckout = (summary: SubscriptionSummary) =>
  `A checkout sells ${summary.plan}${summary.trial_eligible ? ', with a free trial first' : ''}.`;

const SOURCE_WORDS = {
  organization: 'through your organisation',
  user: 'from your own subscription',
};

/** Where the tier comes from, when the token names an organisation (tier_source). */
const sourceHtml = ({ tier_source: source }: SubscriptionSummary) =>
  source ? ` <span class="muted" id="tier-source">${SOURCE_WORDS[source]}</span>` : '';

/** The person's own subscription in words, and what a personal checkout would do now. */
function ownWords(view: AccountView, summary: SubscriptionSummary, coveringTier: string | null) {
  const status = [...view.status, ...planChangeWords(summary.subscription)];
  if (!view.canCheckout) return status;
  if (coveringTier === null) return [...status, nextCheckout(summary)];
  return [
    ...status,
    `Your organisation gives you ${coveringTier}, which covers what a personal checkout sells (${summary.plan}).`,
  ];
}

/** The account as GET /api/v1/billing/subscription says it, and the subscription in words. */
function accountHtml(
  principal: Principal,
  view: AccountView,
  summary: SubscriptionSummary,
  coveringTier: string | null,
) {
  const features = summary.features.length === 0 ? 'none' : summary.features.join(', ');
  const limits = Object.entries(summary.limits)
    .map(([name, limit]) => `${name} ${limit === null ? 'unlimited' : limit}`)
    .join(', ');
  const status = summary.subscription
    ? `<p class="muted">Provider status: <span id="status">${escapeHtml(summary.subscription.status)}</span></p>`
    : '';
  const checkout = view.canCheckout && coveringTier === null ? START_CHECKOUT : '';
  const buttons = `${checkout}${view.canManage ? PORTAL_BUTTON : ''}`;
  return `<p>Signed in as <b>${escapeHtml(principal.idpId)}</b> (${escapeHtml(principal.email)}).</p>
<dl class="account"><dt>Tier</dt><dd>${tierHtml(summary.tier, 'tier')}${sourceHtml(summary)}</dd>
<dt>Subscription</dt><dd>${paragraphs(ownWords(view, summary, coveringTier))}${status}</dd>
<dt>Features</dt><dd id="features">${escapeHtml(features)}</dd>
<dt>Limits</dt><dd id="limits">${escapeHtml(limits || 'none')}</dd></dl>
<div class="actions">${buttons}${SIGN_OUT}</div>`;
}

async function accountPage(services: BillingAccountServices, principal: Principal) {
  const user = await services.users.currentUser(principal);
  const summary = await services.summaries.summary(principal);
  const organization = await organizationSection(services, principal);
  // The API refuses a personal checkout for a tier the organisation already gives (409).
  const { policy } = services;
  const covering =
    organization?.tier != null &&
    tierRank(organization.tier, policy) >= tierRank(summary.plan, policy)
      ? organization.tier
      : null;
  const own = accountHtml(principal, accountView(user, policy), summary, covering);
  const credits = await creditsSection(services.credits, principal);
  return `${own}${organization?.html ?? ''}${credits}`;
}

const noticeHtml = (notice: Notice | null) =>
  notice === null ? '' : `<p class="${notice.kind}">${escapeHtml(notice.text)}</p>`;

export function billingAccountPages(services: BillingAccountServices): FastifyPluginAsync {
  return async (app) => {
    app.get('/billing', { schema: { hide: true } }, async (request, reply) => {
      const notice = noticeHtml(takeNotice(request, reply));
      reply.headers(HEADERS);
      if (presentedToken(request) === null) return page('Billing', `${notice}${SIGN_IN}`);
      try {
        const principal = await signIn(request, reply, services.verifier);
        return page('Billing', `${notice}${await accountPage(services, principal)}`);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        const status = statusOf(error);
        const refused = noticeHtml({ kind: 'error', text: domainRefusalInWords(error) });
        return reply
          .status(status)
          .send(page('Billing', `${refused}${status === 401 ? SIGN_IN : ''}`));
      }
    });
    app.get('/billing/dashboard', { schema: { hide: true } }, async (_request, reply) =>
      reply.redirect(`${services.simulatorUrl}/`, 303),
    );
    await app.register(billingForms(services));
    await app.register(organizationPages(services));
  };
}
