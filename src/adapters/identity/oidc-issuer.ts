// A real OpenID Connect issuer: discovery document, remote JWKS (cached by jose, refetched on an
// unknown `kid` at most once per cooldown), and the userinfo endpoint for tokens without e-mail.
import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';

const TIMEOUT_MS = 5_000;

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
  let remoteKeys: JWTVerifyGetKey | null = jwksUrl ? createRemoteJWKSet(new URL(jwksUrl), { timeoutDuration: TIMEOUT_MS }) : null;
  return {
    async keys(header, token) {
      if (remoteKeys === null) {
        const { jwks_uri } = await discover();
        if (!jwks_uri) throw new Error('the issuer publishes no jwks_uri');
        remoteKeys = createRemoteJWKSet(new URL(jwks_uri), { timeoutDuration: TIMEOUT_MS });
      }
      return remoteKeys(header, token);
    },
    async fetchEmail(token) {
      const { userinfo_endpoint } = await discover();
      if (!userinfo_endpoint) return null;
      const info = (await getJson(userinfo_endpoint, { authorization: `Bearer ${token}` })) as { email?: unknown };
      return typeof info.email === 'string' && info.email !== '' ? info.email : null;
    },
  };
}
