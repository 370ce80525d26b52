// POST /billing/checkout: start a hosted subscription checkout; the price is chosen on the server.
import type { FastifyPluginAsync } from 'fastify';
import type { CheckoutInput, CheckoutService } from '../../domain/billing/checkout-service.ts';
import type { TokenVerifier } from '../../domain/ports/token-verifier.ts';
import { authenticate } from '../authenticate.ts';
import { ERROR_RESPONSES } from '../responses.ts';
import { AUTH_RESPONSES, described, ref } from '../schemas.ts';

export function checkoutRoutes(checkout: CheckoutService, verifier: TokenVerifier, perUserPerMinute: number): FastifyPluginAsync {
  return async (app) => {
    app.post<{ Body: CheckoutInput }>('/billing/checkout', {
      schema: {
        operationId: 'createCheckoutSession',
        summary: 'Create checkout session',
        tags: ['billing'],
        security: [{ bearerAuth: [] }],
        body: ref('CheckoutRequest'),
        response: {
          200: described('CheckoutResponse', 'The hosted checkout session to send the user to'),
          ...AUTH_RESPONSES,
          ...ERROR_RESPONSES,
        },
      },
      onRequest: authenticate(verifier),
      // Per user, after authentication; a checkout costs provider calls.
      config: { rateLimit: { max: perUserPerMinute, timeWindow: 60_000, hook: 'preHandler', keyGenerator: (request) => `checkout:${request.principal.idpId}` } },
      handler: (request) => checkout.start(request.principal, request.body),
    });
  };
}
