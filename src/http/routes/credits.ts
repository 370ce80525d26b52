// Credits (contract section 14): the caller's balance and ledger, a pack's checkout, and the
// application's backend spending them.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { CreditSpends } from '../../domain/credits/credit-spends.ts';
import type {
  CreditsService,
  CreditsSummary,
  LedgerPage,
  PackCheckoutInput,
} from '../../domain/credits/credits-service.ts';
import type { ServiceAccess } from '../../domain/service-caller.ts';
import type { TokenVerifier } from '../../domain/ports/token-verifier.ts';
import { authenticate } from '../authenticate.ts';
import { spendRoute } from './credit-spend.ts';
import { perUserLimit } from '../per-user-limit.ts';
import { ERROR_RESPONSES, billingResponses } from '../responses.ts';
import { AUTH_RESPONSES, described, ref } from '../schemas.ts';
import { wireTime } from '../wire.ts';

const READ_RESPONSES = { ...AUTH_RESPONSES, 500: ERROR_RESPONSES[500], 503: ERROR_RESPONSES[503] };

const LEDGER_QUERY = Type.Object(
  {
    limit: Type.Optional(
      Type.String({
        pattern: '^(?:[1-9]|[1-9][0-9]|1[0-9][0-9]|200)$',
        description: 'Entries per page, 1 to 200; 50 unless given',
      }),
    ),
    before: Type.Optional(
      Type.String({ pattern: '^[1-9][0-9]{0,17}$', description: 'An entry id: entries before it' }),
    ),
  },
  { additionalProperties: false },
);

const summaryBody = ({ grant, packs, ...rest }: CreditsSummary) => ({
  ...rest,
  grant: grant && {
    amount: grant.amount,
    remaining: grant.remaining,
    expires_at: wireTime(grant.expiresAt),
  },
  packs,
});

const ledgerBody = ({ entries, next }: LedgerPage) => ({
  entries: entries.map(({ id, at, kind, amount, balanceAfter, reason }) => ({
    id,
    at: wireTime(at),
    kind,
    amount,
    balance_after: balanceAfter,
    reason,
  })),
  next,
});

export interface CreditRoutes {
  credits: CreditsService;
  spends: CreditSpends;
  verifier: TokenVerifier;
  access: ServiceAccess;
  perUserPerMinute: number;
}

type App = Parameters<FastifyPluginAsync>[0];

function readRoutes(app: App, { credits, verifier }: CreditRoutes): void {
  app.get('/credits', {
    schema: {
      operationId: 'getCredits',
      summary: "The caller's credits",
      description:
        "The organisation's when the token names one (organisations on), else the user's own.",
      tags: ['credits'],
      security: [{ bearerAuth: [] }],
      response: {
        200: described('Credits', 'The balance, its grant and the packs'),
        ...READ_RESPONSES,
      },
    },
    onRequest: authenticate(verifier),
    handler: async (request) => summaryBody(await credits.summary(request.principal)),
  });
  app.get<{ Querystring: { limit?: string; before?: string } }>('/credits/ledger', {
    schema: {
      operationId: 'getCreditLedger',
      summary: "The caller's credit ledger, newest first",
      tags: ['credits'],
      security: [{ bearerAuth: [] }],
      querystring: LEDGER_QUERY,
      response: {
        200: described('CreditLedger', 'A page of entries'),
        ...READ_RESPONSES,
        422: ERROR_RESPONSES[422],
      },
    },
    onRequest: authenticate(verifier),
    handler: async (request) =>
      ledgerBody(
        await credits.ledger(request.principal, {
          limit: Number(request.query.limit ?? 50),
          before: request.query.before ?? null,
        }),
      ),
  });
}

function checkoutRoute(app: App, { credits, verifier, perUserPerMinute }: CreditRoutes): void {
  app.post<{ Body: PackCheckoutInput }>('/credits/checkout', {
    schema: {
      operationId: 'createCreditCheckout',
      summary: 'Buy a credit pack',
      description:
        "A one-time Checkout of the pack's price on the subject's customer; only an organisation's managers buy for it.",
      tags: ['credits'],
      security: [{ bearerAuth: [] }],
      body: ref('CreditCheckoutRequest'),
      response: {
        ...billingResponses(
          'CheckoutResponse',
          'The hosted checkout session to send the buyer to',
          'No credit packs are for sale (BILLING_CREDIT_PACKS is unset)',
        ),
        403: described('ErrorDetail', 'The token names an organisation and gives no manager role'),
      },
    },
    onRequest: authenticate(verifier),
    config: perUserLimit('checkout', perUserPerMinute),
    handler: (request) => credits.checkout(request.principal, request.body),
  });
}

export function creditRoutes(deps: CreditRoutes): FastifyPluginAsync {
  return async (app) => {
    readRoutes(app, deps);
    checkoutRoute(app, deps);
    spendRoute(app, deps);
  };
}
