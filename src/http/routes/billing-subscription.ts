// GET /billing/subscription: what the caller may do now (tier, entitlements) and what the next
// checkout would sell (plan, trial), with the subscription behind it.
import type { FastifyPluginAsync } from 'fastify';
import type { SubscriptionSummaryService } from '../../domain/billing/subscription-summary.ts';
import type { TokenVerifier } from '../../domain/ports/token-verifier.ts';
import { authenticate } from '../authenticate.ts';
import { wired } from '../wire.ts';
import { ERROR_RESPONSES } from '../responses.ts';
import { AUTH_RESPONSES, described } from '../schemas.ts';

export function billingSubscriptionRoutes(
  summaries: SubscriptionSummaryService,
  verifier: TokenVerifier,
): FastifyPluginAsync {
  return async (app) => {
    app.get('/billing/subscription', {
      schema: {
        operationId: 'getBillingSubscription',
        summary: 'Get subscription and entitlements',
        description:
          "The caller's tier with its features and limits, the plan the next checkout sells and whether it would carry a trial, and the subscription the tier comes from. Creates the profile on first access.",
        tags: ['billing'],
        security: [{ bearerAuth: [] }],
        response: {
          200: described('BillingSubscription', "The caller's subscription and entitlements"),
          ...AUTH_RESPONSES,
          500: ERROR_RESPONSES[500],
          503: ERROR_RESPONSES[503],
        },
      },
      onRequest: authenticate(verifier),
      handler: async (request) => wired(await summaries.summary(request.principal)),
    });
  };
}
