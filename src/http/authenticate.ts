// Identity resolved once per request: a pre-handler turns the bearer token into a principal.
// Every failure is a 401 with a `{"detail": ...}` body; the verifier never decides a status.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.ts';
import type { Principal } from '../domain/model/callers.ts';
import type { TokenVerifier } from '../domain/ports/token-verifier.ts';
import { checkServiceCaller, type ServiceAccess } from '../domain/service-caller.ts';

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
      reason: 'malformed bearer credentials: send Authorization: Bearer and the token alone',
    });
  return match[1]!;
}

function requiredToken(request: FastifyRequest): string {
  const token = bearerToken(request.headers.authorization);
  if (token !== null) return token;
  const reason =
    request.headers.authorization === undefined
      ? 'no Authorization header'
      : 'Authorization header is not Bearer credentials';
  throw new DomainError('not_authenticated', 'Not authenticated', { reason });
}

export function authenticate(verifier: TokenVerifier) {
  return async function authenticateRequest(
    request: FastifyRequest,
    _reply: FastifyReply,
  ): Promise<void> {
    request.principal = await verifier.verify(requiredToken(request));
  };
}

/**
 * For a backend's operations (seat reports): a verified token of the application's backend
 * (domain/service-caller.ts), or 403 before the body is read.
 */
export function authenticateService(
  verifier: TokenVerifier,
  access: ServiceAccess,
  operation: string,
) {
  return async function authenticateServiceRequest(
    request: FastifyRequest,
    _reply: FastifyReply,
  ): Promise<void> {
    checkServiceCaller(await verifier.verifyService(requiredToken(request)), access, operation);
  };
}
