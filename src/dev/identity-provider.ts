// The embedded development identity provider: a token minter and the JWKS of its key (signing-
// key.ts: generated once, kept under DATA_DIR). The service verifies its tokens with the same
// jwt-verifier as any real issuer; only the key source is local.
import { createLocalJWKSet, SignJWT, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { SIGNING_ALGORITHM, type SigningKey } from './signing-key.ts';

export interface TokenClaims {
  sub: string;
  email?: string;
  issuer: string;
  audience: string;
  ttlSeconds?: number;
  extra?: Record<string, unknown>;
}

export function signToken(key: SigningKey, claims: TokenClaims): Promise<string> {
  const payload = {
    ...claims.extra,
    ...(claims.email === undefined ? {} : { email: claims.email }),
  };
  return new SignJWT(payload)
    .setProtectedHeader({ alg: key.publicJwk.alg ?? SIGNING_ALGORITHM, kid: key.kid, typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuer(claims.issuer)
    .setAudience(claims.audience)
    .setIssuedAt()
    .setExpirationTime(`${claims.ttlSeconds ?? 3600}s`)
    .sign(key.privateKey);
}

/** Sets `value` at a claim path (a name, or a JSON Pointer with a leading `/`) of `claims`. */
function setClaim(claims: Record<string, unknown>, path: string, value: unknown): void {
  const names = path.startsWith('/')
    ? path
        .slice(1)
        .split('/')
        .map((name) => name.replace(/~1/g, '/').replace(/~0/g, '~'))
    : [path];
  const last = names.pop()!;
  let at = claims;
  for (const name of names) {
    if (typeof at[name] !== 'object' || at[name] === null) at[name] = {};
    at = at[name] as Record<string, unknown>;
  }
  at[last] = value;
}

/**
 * The claims naming an organisation and the caller's role(s) there, written where the service
 * reads them (IDP_ORG_CLAIM and IDP_ORG_ROLE_CLAIM, or the development provider's org_id and
 * org_role): one role as a string, several as a list.
 */
export function organizationClaims(
  paths: { claim: string; roleClaim: string | null },
  organization: string,
  roles: string[],
): Record<string, unknown> {
  const claims: Record<string, unknown> = {};
  setClaim(claims, paths.claim, organization);
  if (paths.roleClaim !== null && roles.length > 0)
    setClaim(claims, paths.roleClaim, roles.length === 1 ? roles[0] : roles);
  return claims;
}

export function jwksOf(...keys: SigningKey[]): JSONWebKeySet {
  return { keys: keys.map((key) => key.publicJwk) };
}

export function localKeys(key: SigningKey): JWTVerifyGetKey {
  return createLocalJWKSet(jwksOf(key));
}

/** The dev issuer's identifier: the service's own address, under which it publishes its JWKS. */
export function devIssuerUrl(host: string, port: number): string {
  return `http://${host}:${port}/dev/idp`;
}
