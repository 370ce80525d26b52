// /_sim/drift/...: changes whose events are lost (drift.ts), for trying an application's
// reconciliation: a subscription canceled, switched or renewed "in the dashboard", or one made
// outside the application for an existing or a new customer. Form parameters, JSON answers, the
// API key as for the other controls; `events` is always empty.
import type { FastifyPluginAsync } from 'fastify';
import type { SimContext } from '../context.ts';
import { DRIFT_ACTIONS, subscribeElsewhere } from '../drift.ts';
import { invalidParam } from '../errors.ts';
import { allowOnly, metadata, text } from '../params.ts';
import { paramsOf } from './request.ts';

export function driftControlRoutes(ctx: SimContext): FastifyPluginAsync {
  return async (app) => {
    app.post<{ Params: { id: string; action: string } }>(
      '/drift/subscriptions/:id/:action',
      async (request) => {
        const params = paramsOf(request);
        allowOnly(params, ['price']);
        const action = DRIFT_ACTIONS[request.params.action];
        if (action === undefined)
          throw invalidParam(
            `Unknown action ${request.params.action}; use one of ${Object.keys(DRIFT_ACTIONS).join(', ')}.`,
          );
        const outcome = await action(ctx, request.params.id, text(params, 'price'));
        return { ...outcome.value, events: [] };
      },
    );

    app.post('/drift/subscriptions', async (request) => {
      const params = paramsOf(request);
      allowOnly(params, ['customer', 'email', 'price', 'metadata']);
      const outcome = await subscribeElsewhere(ctx, {
        customer: text(params, 'customer'),
        email: text(params, 'email', { max: 512 }),
        price: text(params, 'price', { required: true })!,
        metadata: metadata(params),
      });
      return { ...outcome.value, events: [] };
    });
  };
}
