// GET /users/me: the caller's profile, created on first access.
import type { FastifyPluginAsync } from 'fastify';
import type { UserService } from '../../domain/users/user-service.ts';
import type { TokenVerifier } from '../../domain/ports/token-verifier.ts';
import { authenticate } from '../authenticate.ts';
import { AUTH_RESPONSES, ref } from '../schemas.ts';

export function usersRoutes(users: UserService, verifier: TokenVerifier): FastifyPluginAsync {
  return async (app) => {
    app.get('/users/me', {
      schema: {
        operationId: 'getCurrentUser',
        summary: 'Get current user profile',
        tags: ['users'],
        security: [{ bearerAuth: [] }],
        response: { 200: ref('User'), ...AUTH_RESPONSES, 500: ref('ErrorDetail'), 503: ref('ErrorDetail') },
      },
      onRequest: authenticate(verifier),
      handler: (request) => users.profile(request.principal),
    });
  };
}
