// POST /webhooks/payments: provider events. The body stays raw bytes on this route only, since the
// signature is computed over exactly those bytes; no Authorization header is used.
import type { FastifyPluginAsync } from 'fastify';
import type { WebhookService } from '../../domain/webhooks/webhook-service.ts';
import { ref } from '../schemas.ts';

/** Well above Stripe's largest events (a few hundred KB at most). */
export const WEBHOOK_BODY_LIMIT = 1024 * 1024;

export function webhookRoutes(webhooks: WebhookService): FastifyPluginAsync {
  return async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_request, body, done) => done(null, body));
    app.post('/webhooks/payments', {
      bodyLimit: WEBHOOK_BODY_LIMIT,
      schema: {
        operationId: 'receivePaymentEvent',
        summary: 'Payment provider webhook',
        tags: ['webhooks'],
        description: 'Stripe events, verified by the Stripe-Signature header over the raw body and processed exactly once.',
        response: { 200: ref('WebhookResponse'), 400: ref('ErrorDetail'), 413: ref('ErrorDetail'), 500: ref('ErrorDetail'), 502: ref('ErrorDetail'), 503: ref('ErrorDetail') },
      },
      handler: async (request) => {
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const signature = request.headers['stripe-signature'];
        return { status: await webhooks.receive(body, Array.isArray(signature) ? signature.join(',') : signature) };
      },
    });
  };
}
