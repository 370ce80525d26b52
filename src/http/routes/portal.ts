// POST /billing/portal: the address of the provider's hosted billing portal for the user's
// customer; what the person changes there comes back as webhook events.
import type { FastifyPluginAsync } from 'fastify';
import type { PortalInput, PortalService } from '../../domain/billing/portal-service.ts';
import type { TokenVerifier } from '../../domain/ports/token-verifier.ts';
import { authenticate } from '../authenticate.ts';
import { perUserLimit } from '../per-user-limit.ts';
import { billingResponses } from '../responses.ts';
import { ref } from '../schemas.ts';

export function portalRoutes(
  portal: PortalService,
  verifier: TokenVerifier,
  perUserPerMinute: number,
): FastifyPluginAsync {
  return async (app) => {
    app.post<{ Body: PortalInput }>('/billing/portal', {
      schema: {
        operationId: 'createPortalSession',
        summary: 'Create billing portal session',
        description:
          "Opens the payment provider's hosted billing portal for the user's customer: switch plan, cancel, resume, update the card. 409 while the user has never checked out.",
        tags: ['billing'],
        security: [{ bearerAuth: [] }],
        body: ref('PortalRequest'),
        response: billingResponses(
          'PortalResponse',
          'The billing portal session to send the user to',
          'The user has no provider customer yet: nothing to manage before a first checkout',
        ),
      },
      onRequest: authenticate(verifier),
      // Like checkout: per user, after authentication, since a session costs a provider call.
      config: perUserLimit('portal', perUserPerMinute),
      handler: (request) => portal.open(request.principal, request.body),
    });
  };
}
