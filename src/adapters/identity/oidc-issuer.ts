// A real OpenID Connect issuer: discovery document, remote JWKS (cached by jose, refetched on an
// unknown `kid` at most once per cooldown, the last keys kept while the issuer is unreachable),
// and the userinfo endpoint for tokens without e-mail.
import { createLocalJWKSet, createRemoteJWKSet, errors as joseErrors, type JWTVerifyGetKey } from 'jose';

const TIMEOUT_MS = 5_000;
const COOLDOWN_MS = 30_000;
// What jose throws when the key set could not be fetched or read, as opposed to a token's fault.
const KEY_SET_FETCH_FAILURES = new Set(['ERR_JOSE_GENERIC', 'ERR_JWKS_TIMEOUT', 'ERR_JWKS_INVALID']);

function isKeySetFetchFailure(error: unknown): boolean {
  return !(error instanceof joseErrors.JOSEError) || KEY_SET_FETCH_FAILURES.has(error.code);
}

/**
 * jose's remote key set, stale-if-error: when the issuer cannot be reached, the keys fetched last
 * keep verifying (an outage must not reject every token once jose's 10-minute cache age is over),
 * and the issuer is asked again at most once per cooldown instead of on every request.
 */
function remoteKeySet(url: URL): JWTVerifyGetKey {
  const remote = createRemoteJWKSet(url, { timeoutDuration: TIMEOUT_MS, cooldownDuration: COOLDOWN_MS });
  let stale: { keys: JWTVerifyGetKey; failedAt: number } | null = null;
  return async (header, token) => {
    if (stale !== null && Date.now() - stale.failedAt < COOLDOWN_MS) return stale.keys(header, token);
    try {
      return await remote(header, token);
    } catch (error) {
      const last = remote.jwks();
      if (last === undefined || !isKeySetFetchFailure(error)) throw error;
      stale = { keys: createLocalJWKSet(last), failedAt: Date.now() };
      return stale.keys(header, token);
    }
  };
}

interface Discovery {
  jwks_uri?: string;
  userinfo_endpoint?: string;
}

async function getJson(url: string, headers: Record<string, string> = {}): Promise<unknown> {
  const response = await fetch(url, { headers: { accept: 'application/json', ...headers }, signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.json();
}

export interface OidcIssuer {
  keys: JWTVerifyGetKey;
  fetchEmail(token: string): Promise<string | null>;
}

export function connectOidcIssuer(issuer: string, jwksUrl: string | null): OidcIssuer {
  // Discovery is fetched when first needed and retried after a failure, so a slow issuer at
  // start-up does not stop the service.
  let discovery: Promise<Discovery> | null = null;
  const discover = (): Promise<Discovery> => {
    discovery ??= (getJson(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`) as Promise<Discovery>).catch((error) => {
      discovery = null;
      throw error;
    });
    return discovery;
  };
  // One key set for the process, even when the first requests arrive together.
  let keySet: Promise<JWTVerifyGetKey> | null = jwksUrl ? Promise.resolve(remoteKeySet(new URL(jwksUrl))) : null;
  const resolveKeySet = (): Promise<JWTVerifyGetKey> => {
    keySet ??= discover()
      .then(({ jwks_uri }) => {
        if (!jwks_uri) throw new Error('the issuer publishes no jwks_uri');
        return remoteKeySet(new URL(jwks_uri));
      })
      .catch((error) => {
        keySet = null;
        throw error;
      });
    return keySet;
  };
  return {
    async keys(header, token) {
      return (await resolveKeySet())(header, token);
    },
    async fetchEmail(token) {
      const { userinfo_endpoint } = await discover();
      if (!userinfo_endpoint) return null;
      const info = (await getJson(userinfo_endpoint, { authorization: `Bearer ${token}` })) as { email?: unknown };
      return typeof info.email === 'string' && info.email !== '' ? info.email : null;
    },
  };
}
