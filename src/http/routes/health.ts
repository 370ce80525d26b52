// Liveness (the process answers) and readiness (the database answers and has every migration).
// While shutting down Fastify answers 503 to every new request, /readyz included, so a load
// balancer stops sending traffic.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';

const Status = Type.Object({ status: Type.String() });

export function healthRoutes(checkReady: () => Promise<void>): FastifyPluginAsync {
  return async (app) => {
    app.get('/healthz', { schema: { hide: true, response: { 200: Status } } }, async () => ({
      status: 'ok',
    }));
    app.get(
      '/readyz',
      { schema: { hide: true, response: { 200: Status, 503: Status } } },
      async (request, reply) => {
        try {
          await checkReady();
          return { status: 'ready' };
        } catch (error) {
          request.log.warn({ err: error }, 'not ready');
          return reply.status(503).send({ status: 'not ready' });
        }
      },
    );
  };
}
