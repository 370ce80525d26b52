// The issuer's signing keys over HTTP (jose's remote JWKS). An unknown `kid` refetches at most once
// per UNKNOWN_KID_COOLDOWN_MS (jose's 30 s default would refuse a key an issuer signs with the
// moment it publishes it); a failed fetch waits FAILURE_BACKOFF_MS; while the issuer fails, the
// last keys fetched keep verifying (stale-if-error), past jose's 10-minute cache age.
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors as joseErrors,
  type JWTVerifyGetKey,
} from 'jose';

export const UNKNOWN_KID_COOLDOWN_MS = 5_000;
export const FAILURE_BACKOFF_MS = 30_000;

// What jose throws when the key set could not be fetched or read, as opposed to a token's fault.
const KEY_SET_FETCH_FAILURES = new Set([
  'ERR_JOSE_GENERIC',
  'ERR_JWKS_TIMEOUT',
  'ERR_JWKS_INVALID',
]);

export function isKeySetFetchFailure(error: unknown): error is Error {
  return (
    error instanceof Error &&
    (!(error instanceof joseErrors.JOSEError) || KEY_SET_FETCH_FAILURES.has(error.code))
  );
}

export class KeySetUnavailable extends Error {
  constructor(url: URL, cause: Error) {
    super(`the identity provider's keys at ${url.href} could not be fetched: ${cause.message}`);
    this.name = 'KeySetUnavailable';
  }
}

export function remoteKeySet(
  url: URL,
  timeoutMs: number,
  onFetchError: (error: Error) => void,
): JWTVerifyGetKey {
  const remote = createRemoteJWKSet(url, {
    timeoutDuration: timeoutMs,
    cooldownDuration: UNKNOWN_KID_COOLDOWN_MS,
  });
  let failure: { error: KeySetUnavailable; at: number; lastKeys: JWTVerifyGetKey | null } | null =
    null;
  return async (header, token) => {
    if (failure !== null && Date.now() - failure.at < FAILURE_BACKOFF_MS) {
      if (failure.lastKeys === null) throw failure.error;
      return failure.lastKeys(header, token);
    }
    try {
      const key = await remote(header, token);
      failure = null;
      return key;
    } catch (error) {
      if (!isKeySetFetchFailure(error)) throw error;
      const last = remote.jwks();
      failure = {
        error: new KeySetUnavailable(url, error),
        at: Date.now(),
        lastKeys: last === undefined ? null : createLocalJWKSet(last),
      };
      onFetchError(failure.error);
      if (failure.lastKeys === null) throw failure.error;
      return failure.lastKeys(header, token);
    }
  };
}
