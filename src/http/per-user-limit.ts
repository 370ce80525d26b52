// The per-user rate limit of the operations that cost provider calls (checkout, portal): counted
// per authenticated subject and operation, so it runs after authentication (preHandler).
import type { FastifyRequest } from 'fastify';

export function perUserLimit(operation: string, perMinute: number) {
  return {
    rateLimit: { max: perMinute, timeWindow: 60_000, hook: 'preHandler' as const, keyGenerator: (request: FastifyRequest) => `${operation}:${request.principal.idpId}` },
  };
}
