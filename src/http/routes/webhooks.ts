// POST /webhooks/payments: provider events. The body stays raw bytes on this route only, since the
// signature is computed over exactly those bytes; no Authorization header is used.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { WebhookService } from '../../domain/webhooks/webhook-service.ts';
import { ERROR_RESPONSES } from '../responses.ts';
import { described } from '../schemas.ts';

// For /openapi.json only: the raw bytes are checked by their signature, never by a schema (a
// schema's 422 would also take the place of the 400 a missing signature gets).
const SnapshotEvent = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('event'),
    type: Type.String(),
    created: Type.Integer({ description: "Unix time; at most 60 s after the signature's t" }),
    livemode: Type.Boolean(),
    data: Type.Object({ object: Type.Object({}) }),
  },
  { description: "A snapshot event: the object as it was, rendered in the endpoint's API version" },
);
const ThinEvent = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('v2.core.event'),
    type: Type.String({
      description: '`v1.` and the snapshot type, e.g. v1.customer.subscription.updated',
    }),
    created: Type.String({ format: 'date-time' }),
    livemode: Type.Boolean(),
    related_object: Type.Object({ id: Type.String(), type: Type.String(), url: Type.String() }),
  },
  {
    description:
      'A thin event (an event destination with thin payloads): names the object, carries none of it',
  },
);
const PaymentEvent = Type.Union([SnapshotEvent, ThinEvent], {
  description:
    'A Stripe event exactly as Stripe sends it, either payload style (its raw bytes are what is signed)',
});
const SignatureHeader = Type.Object({
  'stripe-signature': Type.String({
    description:
      't=<unix time>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the endpoint\'s secret>; several v1 during a secret rotation',
  }),
});
const documentationOnly = () => () => true;

/** Well above Stripe's largest events (a few hundred KB at most). */
export const WEBHOOK_BODY_LIMIT = 1024 * 1024;

export function webhookRoutes(webhooks: WebhookService): FastifyPluginAsync {
  return async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT },
      (_request, body, done) => done(null, body),
    );
    app.post('/webhooks/payments', {
      bodyLimit: WEBHOOK_BODY_LIMIT,
      schema: {
        operationId: 'receivePaymentEvent',
        summary: 'Payment provider webhook',
        tags: ['webhooks'],
        description:
          'Stripe events, snapshot or thin, verified by the Stripe-Signature header over the raw body and processed exactly once. An event the service cannot translate is acknowledged as ignored and recorded with its reason.',
        // No caller credentials: the Stripe-Signature header, a signature of the body, is the proof.
        security: [],
        headers: SignatureHeader,
        body: PaymentEvent,
        response: {
          200: described(
            'WebhookResponse',
            '{"status": "processed"}, "duplicate" (already processed) or "ignored" (not for this service or mode, or not translatable: recorded with its reason)',
          ),
          400: described(
            'ErrorDetail',
            'Missing, malformed, stale or wrong Stripe-Signature, or a signed body that is not an event; nothing is stored',
          ),
          413: ERROR_RESPONSES[413],
          500: described(
            'ErrorDetail',
            "The handler failed: nothing was kept, and the provider's redelivery runs it again",
          ),
          502: ERROR_RESPONSES[502],
          503: ERROR_RESPONSES[503],
        },
      },
      validatorCompiler: documentationOnly,
      handler: async (request) => {
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const signature = request.headers['stripe-signature'];
        return {
          status: await webhooks.receive(
            body,
            Array.isArray(signature) ? signature.join(',') : signature,
          ),
        };
      },
    });
  };
}
