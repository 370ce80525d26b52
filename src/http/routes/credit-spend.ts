// POST /credits/spend: the application's backend spends a subject's credits (contract section 14).
import type { SpendInput } from '../../domain/credits/credit-spends.ts';
import { authenticateService } from '../authenticate.ts';
import { ERROR_RESPONSES } from '../responses.ts';
import { AUTH_RESPONSES, described, ref } from '../schemas.ts';
import type { FastifyInstance } from 'fastify';
import type { CreditSpends } from '../../domain/credits/credit-spends.ts';
import type { ServiceAccess } from '../../domain/service-caller.ts';
import type { TokenVerifier } from '../../domain/ports/token-verifier.ts';

export function spendRoute(
  app: FastifyInstance,
  {
    spends,
    verifier,
    access,
  }: { spends: CreditSpends; verifier: TokenVerifier; access: ServiceAccess },
): void {
  app.post<{ Body: SpendInput }>('/credits/spend', {
    schema: {
      operationId: 'spendCredits',
      summary: "Spend a subject's credits",
      description: `For the application's backend: a token with the scope ${access.scope} issued to a client BILLING_SERVICE_CLIENTS lists. The same idempotency_key again gets the first answer.`,
      tags: ['credits'],
      security: [{ bearerAuth: [] }],
      body: ref('CreditSpendRequest'),
      response: {
        200: described('CreditSpend', 'Spent'),
        402: described('CreditSpendRefused', 'The balance is below the amount: nothing spent'),
        ...AUTH_RESPONSES,
        403: described('ErrorDetail', "Not the application's backend"),
        409: described('ErrorDetail', 'The idempotency key was used for another spend'),
        413: ERROR_RESPONSES[413],
        415: ERROR_RESPONSES[415],
        422: ERROR_RESPONSES[422],
        500: ERROR_RESPONSES[500],
        503: ERROR_RESPONSES[503],
      },
    },
    onRequest: authenticateService(verifier, access, 'Spending credits'),
    handler: async (request, reply) => {
      const { status, body } = await spends.spend(request.body);
      return reply.code(status).send(body);
    },
  });
}
