// Who verifies the bearer tokens: a real OIDC issuer (IDP_ISSUER), or the development identity
// provider served by the service itself, with its signing key under DATA_DIR.
import type { FastifyPluginAsync } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { createJwtVerifier } from '../adapters/identity/jwt-verifier.ts';
import { connectOidcIssuer } from '../adapters/identity/oidc-issuer.ts';
import { devIssuerUrl, localKeys } from '../dev/identity-provider.ts';
import { loadOrCreateSigningKey } from '../dev/signing-key.ts';
import { devIdentityProviderRoutes } from '../dev/identity-provider-routes.ts';
import type { TokenVerifier } from '../domain/ports/token-verifier.ts';

export interface Identity {
  verifier: TokenVerifier;
  /** The development identity provider's issuer when it runs embedded. */
  devIssuer: string | null;
  /** Its JWKS and discovery routes; none with a real issuer. */
  devRoutes: FastifyPluginAsync[];
}

export async function composeIdentity(config: Config, logger: Logger): Promise<Identity> {
  const { identity } = config;
  if (identity.kind === 'oidc') {
    const onFetchError = (error: Error) =>
      logger.warn(
        { err: error.message },
        'identity provider unavailable; cached keys still verify, next attempt after the back-off',
      );
    const issuer = connectOidcIssuer(identity.issuer, identity.jwksUrl, onFetchError);
    const verifier = createJwtVerifier({
      ...identity,
      keys: issuer.keys,
      fetchEmail: issuer.fetchEmail,
      organizations: config.organizations,
    });
    return { verifier, devIssuer: null, devRoutes: [] };
  }
  const key = await loadOrCreateSigningKey(config.dataDir);
  const issuer = devIssuerUrl(config.host, config.port);
  const verifier = createJwtVerifier({
    issuer,
    audience: identity.audience,
    keys: localKeys(key),
    emailClaim: identity.emailClaim,
    organizations: config.organizations,
  });
  return { verifier, devIssuer: issuer, devRoutes: [devIdentityProviderRoutes(issuer, key)] };
}
