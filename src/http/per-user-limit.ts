// The per-user rate limit of the operations that cost provider calls (checkout, portal): counted
// per subject and operation, so it runs after authentication (preHandler). The development forms
// that start the same operations are limited alike, keyed through `subject`.
import type { FastifyRequest } from 'fastify';

const authenticated = (request: FastifyRequest) => request.principal.idpId;

export function perUserLimit(
  operation: string,
  perMinute: number,
  subject: (request: FastifyRequest) => string = authenticated,
) {
  return {
    rateLimit: {
      max: perMinute,
      timeWindow: 60_000,
      hook: 'preHandler' as const,
      keyGenerator: (request: FastifyRequest) => `${operation}:${subject(request)}`,
    },
  };
}
