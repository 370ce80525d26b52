// PUT /orgs/{idp_org_id}/seats: the application's backend reports an organisation's seat count
// (BILLING_SEATS=reported), with a service token; the provider's quantity follows outside the
// request.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type {
  SeatReportAnswer,
  SeatReportInput,
  SeatReports,
} from '../../domain/seats/seat-reports.ts';
import type { ServiceAccess } from '../../domain/service-caller.ts';
import type { TokenVerifier } from '../../domain/ports/token-verifier.ts';
import { authenticateService } from '../authenticate.ts';
import { ERROR_RESPONSES } from '../responses.ts';
import { AUTH_RESPONSES, described, ref } from '../schemas.ts';
import { wireTime } from '../wire.ts';

const PARAMS = Type.Object({
  idp_org_id: Type.String({
    minLength: 1,
    maxLength: 255,
    pattern: '^[^\\u0000-\\u001f\\u007f]+$',
    description: 'The organisation as the identity provider names it (what IDP_ORG_CLAIM reads)',
  }),
});

const seatReportBody = ({ applied, reported, asOf }: SeatReportAnswer) => ({
  applied,
  reported,
  as_of: wireTime(asOf),
});

export function seatRoutes(
  reports: SeatReports,
  verifier: TokenVerifier,
  access: ServiceAccess,
): FastifyPluginAsync {
  return async (app) => {
    app.put<{ Params: { idp_org_id: string }; Body: SeatReportInput }>('/orgs/:idp_org_id/seats', {
      schema: {
        operationId: 'reportOrganizationSeats',
        summary: "Report an organisation's seat count",
        description: `With BILLING_SEATS=reported, the application's backend reports how many seats an organisation uses, with a token holding the scope ${access.scope} issued to a client BILLING_SERVICE_CLIENTS lists. An organisation not seen yet is created; a report older than the stored one changes nothing. The subscription's quantity follows outside the request.`,
        tags: ['organizations'],
        security: [{ bearerAuth: [] }],
        params: PARAMS,
        body: ref('SeatReportRequest'),
        response: {
          200: described('SeatReport', 'The report stored, or the later one already stored'),
          ...AUTH_RESPONSES,
          403: described(
            'ErrorDetail',
            `Not the application's backend: the token lacks the scope ${access.scope}, its client is not in BILLING_SERVICE_CLIENTS, or it names an organisation, carries an e-mail, or says another grant`,
          ),
          409: described('ErrorDetail', 'BILLING_SEATS is not "reported"'),
          413: ERROR_RESPONSES[413],
          415: ERROR_RESPONSES[415],
          422: ERROR_RESPONSES[422],
          500: ERROR_RESPONSES[500],
          503: ERROR_RESPONSES[503],
        },
      },
      onRequest: authenticateService(verifier, access, 'Reporting seats'),
      handler: async (request) =>
        seatReportBody(await reports.report(request.params.idp_org_id, request.body)),
    });
  };
}
