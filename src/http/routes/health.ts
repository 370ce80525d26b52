// Liveness (the process answers) and readiness (the database answers).
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { Store } from '../../domain/ports.ts';

const Status = Type.Object({ status: Type.String() });

export function healthRoutes(store: Store): FastifyPluginAsync {
  return async (app) => {
    app.get('/healthz', { schema: { hide: true, response: { 200: Status } } }, async () => ({ status: 'ok' }));
    app.get('/readyz', { schema: { hide: true, response: { 200: Status, 503: Status } } }, async (_request, reply) => {
      try {
        await store.ping();
        return { status: 'ready' };
      } catch {
        return reply.status(503).send({ status: 'database unavailable' });
      }
    });
  };
}
