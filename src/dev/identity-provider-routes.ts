// Publishes the development issuer's discovery document and JWKS, as a real issuer would, so
// other local tools can verify its tokens too.
import type { FastifyPluginAsync } from 'fastify';
import { jwksOf } from './identity-provider.ts';
import { type SigningKey } from './signing-key.ts';

export function devIdentityProviderRoutes(issuer: string, key: SigningKey): FastifyPluginAsync {
  return async (app) => {
    const hidden = { schema: { hide: true } };
    app.get('/dev/idp/.well-known/openid-configuration', hidden, async () => ({
      issuer,
      jwks_uri: `${issuer}/jwks.json`,
      id_token_signing_alg_values_supported: [key.publicJwk.alg],
    }));
    app.get('/dev/idp/jwks.json', hidden, async () => jwksOf(key));
  };
}
