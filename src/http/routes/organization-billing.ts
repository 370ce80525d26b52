// The billing of the organisation the caller's token names: GET for any member, checkout and the
// portal for a manager. The path, query and body never name an organisation: the token does.
import type { FastifyPluginAsync } from 'fastify';
import type { CheckoutInput } from '../../domain/billing/redirect-urls.ts';
import type { PortalInput } from '../../domain/billing/portal-service.ts';
import type { OrganizationBilling } from '../../domain/organizations/organization-billing.ts';
import type { TokenVerifier } from '../../domain/ports/token-verifier.ts';
import { authenticate } from '../authenticate.ts';
import { wired } from '../wire.ts';
import { perUserLimit } from '../per-user-limit.ts';
import { billingResponses, ERROR_RESPONSES } from '../responses.ts';
import { AUTH_RESPONSES, described, ref } from '../schemas.ts';

const NO_ORGANIZATION =
  'The token names no organisation, or several (sign in with one), or organisations are not enabled';
const NOT_A_MANAGER = `${NO_ORGANIZATION}; or the token's role is not one of BILLING_ORG_MANAGER_ROLES (the detail names them)`;

const SUMMARY_SCHEMA = {
  operationId: 'getOrganizationBilling',
  summary: "Get the organisation's subscription, seats and entitlements",
  description:
    "The billing of the organisation the token names (any member): its tier with its features and limits, the plan its next checkout sells, its seats, its subscription, and the caller's role and whether it may manage them. Records the caller as a member.",
  tags: ['organizations'],
  security: [{ bearerAuth: [] }],
  response: {
    200: described('OrganizationBilling', "The caller's organisation's billing"),
    ...AUTH_RESPONSES,
    403: described('ErrorDetail', NO_ORGANIZATION),
    500: ERROR_RESPONSES[500],
    503: ERROR_RESPONSES[503],
  },
};

const CHECKOUT_SCHEMA = {
  operationId: 'createOrganizationCheckoutSession',
  summary: "Create a checkout session for the organisation's subscription",
  description:
    "For a manager of the organisation the token names: the organisation's plan, priced by the server, for as many seats as it has now (BILLING_SEATS). One trial per organisation, ever.",
  tags: ['organizations'],
  security: [{ bearerAuth: [] }],
  body: ref('CheckoutRequest'),
  response: {
    ...billingResponses(
      'CheckoutResponse',
      'The hosted checkout session to send the manager to',
      'The organisation already has an active, trialing or past_due subscription',
    ),
    403: described('ErrorDetail', NOT_A_MANAGER),
  },
};

const PORTAL_SCHEMA = {
  operationId: 'createOrganizationPortalSession',
  summary: "Create a billing portal session for the organisation's customer",
  description:
    "For a manager of the organisation the token names: the provider's hosted portal for its customer. 409 before its first checkout.",
  tags: ['organizations'],
  security: [{ bearerAuth: [] }],
  body: ref('PortalRequest'),
  response: {
    ...billingResponses(
      'PortalResponse',
      'The billing portal session to send the manager to',
      'The organisation has no provider customer yet: nothing to manage before a first checkout',
    ),
    403: described('ErrorDetail', NOT_A_MANAGER),
  },
};

export function organizationBillingRoutes(
  billing: OrganizationBilling,
  verifier: TokenVerifier,
  perUserPerMinute: number,
): FastifyPluginAsync {
  return async (app) => {
    app.get('/orgs/current/billing', {
      schema: SUMMARY_SCHEMA,
      onRequest: authenticate(verifier),
      handler: async (request) => wired(await billing.summary(request.principal)),
    });

    app.post<{ Body: CheckoutInput }>('/orgs/current/billing/checkout', {
      schema: CHECKOUT_SCHEMA,
      onRequest: authenticate(verifier),
      config: perUserLimit('checkout', perUserPerMinute),
      handler: (request) => billing.checkout(request.principal, request.body),
    });

    app.post<{ Body: PortalInput }>('/orgs/current/billing/portal', {
      schema: PORTAL_SCHEMA,
      onRequest: authenticate(verifier),
      config: perUserLimit('portal', perUserPerMinute),
      handler: (request) => billing.portal(request.principal, request.body),
    });
  };
}
