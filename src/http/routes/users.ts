// GET /users/me: the caller's profile, created on first access.
import type { FastifyPluginAsync } from 'fastify';
import type { Profile, UserService } from '../../domain/users/user-service.ts';
import type { TokenVerifier } from '../../domain/ports/token-verifier.ts';
import { authenticate } from '../authenticate.ts';
import { ERROR_RESPONSES } from '../responses.ts';
import { AUTH_RESPONSES, described } from '../schemas.ts';
import { wireTime } from '../wire.ts';

const profileBody = ({ id, idpId, email, tier, createdAt }: Profile) => ({
  id,
  idp_id: idpId,
  email,
  tier,
  created_at: wireTime(createdAt),
});

export function usersRoutes(users: UserService, verifier: TokenVerifier): FastifyPluginAsync {
  return async (app) => {
    app.get('/users/me', {
      schema: {
        operationId: 'getCurrentUser',
        summary: 'Get current user profile',
        tags: ['users'],
        security: [{ bearerAuth: [] }],
        response: {
          200: described('User', "The caller's profile, created on first access"),
          ...AUTH_RESPONSES,
          500: ERROR_RESPONSES[500],
          503: ERROR_RESPONSES[503],
        },
      },
      onRequest: authenticate(verifier),
      handler: async (request) => profileBody(await users.profile(request.principal)),
    });
  };
}
