// POST /billing/checkout: start a hosted subscription checkout; the price is chosen on the server.
import type { FastifyPluginAsync } from 'fastify';
import type { CheckoutInput } from '../../domain/billing/redirect-urls.ts';
import type { CheckoutService } from '../../domain/billing/checkout-service.ts';
import type { TokenVerifier } from '../../domain/ports/token-verifier.ts';
import { authenticate } from '../authenticate.ts';
import { perUserLimit } from '../per-user-limit.ts';
import { billingResponses } from '../responses.ts';
import { ref } from '../schemas.ts';

export function checkoutRoutes(
  checkout: CheckoutService,
  verifier: TokenVerifier,
  perUserPerMinute: number,
): FastifyPluginAsync {
  return async (app) => {
    app.post<{ Body: CheckoutInput }>('/billing/checkout', {
      schema: {
        operationId: 'createCheckoutSession',
        summary: 'Create checkout session',
        tags: ['billing'],
        security: [{ bearerAuth: [] }],
        body: ref('CheckoutRequest'),
        response: billingResponses(
          'CheckoutResponse',
          'The hosted checkout session to send the user to',
          'The user already has an active, trialing or past_due subscription',
        ),
      },
      onRequest: authenticate(verifier),
      // Per user, after authentication; a checkout costs provider calls.
      config: perUserLimit('checkout', perUserPerMinute),
      handler: (request) => checkout.start(request.principal, request.body),
    });
  };
}
