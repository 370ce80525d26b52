// A real OpenID Connect issuer: discovery document, remote JWKS (remote-key-set.ts), and the
// userinfo endpoint for tokens without an e-mail. Every failure of the issuer is remembered for a
// while (remembered.ts), so a failing issuer costs at most one outbound fetch per back-off, however
// many requests (forged tokens included) arrive meanwhile.
import type { JWTVerifyGetKey } from 'jose';
import { remembered } from './remembered.ts';
import { FAILURE_BACKOFF_MS, remoteKeySet } from './remote-key-set.ts';

const TIMEOUT_MS = 5_000;

interface Discovery {
  jwks_uri?: string;
  userinfo_endpoint?: string;
}

/** What userinfo said: an e-mail, or why there is none (for the log; never the token). */
export type UserinfoAnswer = { email: string } | { problem: string };

class HttpStatusError extends Error {
  constructor(
    url: string,
    readonly status: number,
  ) {
    super(`${url} answered ${status}`);
  }
}

async function getJson(url: string, headers: Record<string, string> = {}): Promise<unknown> {
  const response = await fetch(url, {
    headers: { accept: 'application/json', ...headers },
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  if (!response.ok) throw new HttpStatusError(url, response.status);
  return response.json();
}

export interface OidcIssuer {
  keys: JWTVerifyGetKey;
  fetchEmail(token: string): Promise<UserinfoAnswer>;
}

/** The e-mail the issuer's userinfo endpoint gives for `token`, or why there is none. */
async function userinfoEmail(
  discover: () => Promise<Discovery>,
  token: string,
): Promise<UserinfoAnswer> {
  let endpoint: string | undefined;
  try {
    endpoint = (await discover()).userinfo_endpoint;
  } catch (error) {
    return { problem: (error as Error).message };
  }
  if (!endpoint) return { problem: 'the issuer publishes no userinfo_endpoint' };
  try {
    const info = (await getJson(endpoint, { authorization: `Bearer ${token}` })) as {
      email?: unknown;
    };
    return typeof info.email === 'string' && info.email !== ''
      ? { email: info.email }
      : { problem: 'userinfo answered without an e-mail' };
  } catch (error) {
    return {
      problem:
        error instanceof HttpStatusError
          ? `userinfo answered ${error.status}`
          : `userinfo failed: ${(error as Error).message}`,
    };
  }
}

export function connectOidcIssuer(
  issuer: string,
  jwksUrl: string | null,
  onFetchError: (error: Error) => void,
): OidcIssuer {
  // Fetched when first needed, so a slow issuer at start-up does not stop the service.
  const discover = remembered(async () => {
    try {
      return (await getJson(
        `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`,
      )) as Discovery;
    } catch (error) {
      const failed = new Error(`OIDC discovery of ${issuer} failed: ${(error as Error).message}`);
      onFetchError(failed);
      throw failed;
    }
  }, FAILURE_BACKOFF_MS);
  // One key set for the process, even when the first requests arrive together.
  const keySet = remembered(async () => {
    const url = jwksUrl ?? (await discover()).jwks_uri;
    if (!url) throw new Error(`the issuer ${issuer} publishes no jwks_uri`);
    return remoteKeySet(new URL(url), TIMEOUT_MS, onFetchError);
  }, FAILURE_BACKOFF_MS);
  return {
    async keys(header, token) {
      return (await keySet())(header, token);
    },
    fetchEmail: (token) => userinfoEmail(discover, token),
  };
}
