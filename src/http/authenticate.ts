// Identity resolved once per request: a pre-handler turns the bearer token into a principal.
// Every failure is a 401 with a `{"detail": ...}` body; the verifier never decides a status.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.ts';
import type { Principal } from '../domain/model.ts';
import type { TokenVerifier } from '../domain/ports/token-verifier.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

export function bearerToken(header: string | undefined): string | null {
  if (header === undefined || !/^bearer\b/i.test(header)) return null;
  const match = BEARER.exec(header);
  if (!match)
    throw new DomainError('invalid_token', 'Invalid token', {
      reason: 'malformed bearer credentials',
    });
  return match[1]!;
}

export function authenticate(verifier: TokenVerifier) {
  return async function authenticateRequest(
    request: FastifyRequest,
    _reply: FastifyReply,
  ): Promise<void> {
    const token = bearerToken(request.headers.authorization);
    if (token === null) {
      const reason =
        request.headers.authorization === undefined
          ? 'no Authorization header'
          : 'Authorization header is not Bearer credentials';
      throw new DomainError('not_authenticated', 'Not authenticated', { reason });
    }
    request.principal = await verifier.verify(token);
  };
}
