// Development only: what `/billing` shows of the organisation a token names. Its billing as
// GET /api/v1/orgs/current/billing answers it (the same OrganizationBilling service: the
// organisation and the member recorded on first sight, the seats counted), its subscription in
// words, and the buttons that buy and manage it for a manager only, the role read from the token
// as the API reads it; a member is told who may. Also the page a team checkout comes back to.
import type { FastifyPluginAsync } from 'fastify';
import type {
  OrganizationBilling,
  OrganizationBillingSummary,
} from '../domain/organizations/organization-billing.ts';
import { FREE_TIER } from '../domain/billing/tier.ts';
import { DomainError } from '../domain/errors.ts';
import type { Principal } from '../domain/model/callers.ts';
import type { Store } from '../domain/ports/store.ts';
import type { TokenVerifier } from '../domain/ports/token-verifier.ts';
import { accountView, planChangeWords, trialWords, type AccountPolicy } from './account-words.ts';
import { ORGANIZATION } from './voice.ts';
import { domainRefusalInWords, signIn } from './billing-session.ts';
import {
  escapeHtml,
  HEADERS,
  page,
  paragraphs,
  TEAM_CHECKOUT,
  TEAM_PORTAL,
  tierHtml,
} from './page-layout.ts';

export interface OrganizationPageServices {
  organizations: OrganizationBilling;
  store: Pick<Store, 'organizations'>;
  policy: AccountPolicy;
  /** BILLING_ORG_MANAGER_ROLES, to tell a member whom to ask. */
  managerRoles: readonly string[];
  verifier: TokenVerifier;
}

export interface OrganizationSection {
  html: string;
  /** The tier the organisation gives its members; null when the section could not show it. */
  tier: string | null;
}

const listed = (roles: string | readonly string[] | null) =>
  roles === null || roles.length === 0 ? 'none' : [roles].flat().join(', ');

function seatsHtml({ active, reported, billed }: OrganizationBillingSummary['seats']): string {
  const counted = `${active} active member${active === 1 ? '' : 's'}`;
  const report = reported === null ? '' : `, ${reported} reported by its backend`;
  const bill = billed === null ? '' : `; billed for <span id="org-billed">${billed}</span>`;
  return `${escapeHtml(counted + report)}${bill}`;
}

async function sectionOf(
  services: OrganizationPageServices,
  principal: Principal,
): Promise<OrganizationSection> {
  const summary = await services.organizations.summary(principal);
  const organization = await services.store.organizations.findById(summary.org.id);
  const view = accountView(organization!, services.policy, new Date(), ORGANIZATION);
  const said = [...view.status, ...planChangeWords(summary.subscription)];
  const words =
    summary.can_manage && view.canCheckout
      ? [
          ...said,
          `A team checkout sells ${summary.plan} for its members${summary.trial_eligible ? ', with a free trial first: nothing is charged today' : ''}.`,
        ]
      : said;
  const status = summary.subscription
    ? `<p class="muted">Provider status: <span id="org-status">${escapeHtml(summary.subscription.status)}</span></p>`
    : '';
  const actions = summary.can_manage
    ? `<div class="actions">${view.canCheckout ? TEAM_CHECKOUT : ''}${view.canManage ? TEAM_PORTAL : ''}</div>`
    : `<p id="org-managers">Only a member whose token gives one of the roles ${escapeHtml(services.managerRoles.join(', '))} can buy or change it: ask one of them.</p>`;
  const html = `<dl class="account"><dt>Organisation</dt><dd id="org">${escapeHtml(summary.org.idp_org_id)}</dd>
<dt>Your role</dt><dd id="org-role">${escapeHtml(listed(summary.role))}</dd>
<dt>Its tier</dt><dd>${tierHtml(summary.tier, 'org-tier')}</dd>
<dt>Subscription</dt><dd>${paragraphs(words)}${status}</dd>
<dt>Seats</dt><dd id="org-seats">${seatsHtml(summary.seats)}</dd></dl>${actions}`;
  return { html, tier: summary.tier };
}

/** The organisation's part of /billing; null when the token names none. */
export async function organizationSection(
  services: OrganizationPageServices,
  principal: Principal,
): Promise<OrganizationSection | null> {
  if (principal.organization === null) return null;
  try {
    const section = await sectionOf(services, principal);
    return { ...section, html: `<h2>Your organisation</h2>${section.html}` };
  } catch (error) {
    // Several organisations in one token, or organisations off: the API's 403, in words.
    if (!(error instanceof DomainError) || error.code !== 'organization_required') throw error;
    return {
      html: `<h2>Your organisation</h2><p class="error">${escapeHtml(error.message)}.</p>`,
      tier: null,
    };
  }
}

/** After a team checkout: the organisation's tier once the webhook is in, refreshing until then. */
async function teamOutcome(services: OrganizationPageServices, principal: Principal) {
  const summary = await services.organizations.summary(principal);
  if (summary.tier === FREE_TIER)
    return page(
      'Checkout complete',
      "<p>Thank you! Waiting for the payment provider to confirm your organisation's subscription…</p>",
      true,
    );
  const seats = summary.seats.billed ?? summary.seats.active;
  const now = `${escapeHtml(summary.org.idp_org_id)} is now on ${tierHtml(summary.tier, 'org-tier')}, for ${seats} seat${seats === 1 ? '' : 's'}: every member has it.`;
  const { subscription } = summary;
  if (subscription?.status !== 'trialing')
    return page('Payment received', `<p>Thank you! ${now}</p>`);
  // A trial charges nothing today: say when it ends and what happens then, not "payment".
  const end = subscription.trial_end ?? subscription.current_period_end;
  const words = trialWords(summary.tier, end, services.policy, ORGANIZATION);
  return page(
    "Your team's trial has started",
    `<p>Thank you! ${now}</p>${paragraphs(words)}<p>Nothing was charged today.</p>`,
  );
}

export function organizationPages(services: OrganizationPageServices): FastifyPluginAsync {
  return async (app) => {
    app.get('/billing/org/success', { schema: { hide: true } }, async (request, reply) => {
      reply.headers(HEADERS);
      try {
        return await teamOutcome(services, await signIn(request, reply, services.verifier));
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        const words = escapeHtml(domainRefusalInWords(error));
        return page('Checkout complete', `<p class="error">${words}</p>`);
      }
    });
  };
}
