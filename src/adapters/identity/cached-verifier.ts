// Remembers the tokens the inner verifier accepted, so a client repeating its token costs a hash
// and a look-up instead of a signature check. Safe because a refusal is never kept (a bad token is
// checked every time), the key is the SHA-256 of the whole token, and an entry lives until the
// token's `exp` or `maxAgeMs`, whichever is first: that bounds how long a token outlives its key.
import { createHash } from 'node:crypto';
import { decodeJwt } from 'jose';
import type { Principal } from '../../domain/model/callers.ts';
import type { TokenVerifier } from '../../domain/ports/token-verifier.ts';
import { ExpiringEntries } from './expiring-entries.ts';

export interface CachedVerifierOptions {
  /** Entries kept at most; the least recently used goes first. Default 10,000 (a few MB). */
  maxEntries?: number;
  /** Longest an entry is trusted, even when the token expires later. Default 60 s. */
  maxAgeMs?: number;
  /** Clock, in ms since the epoch. Default Date.now. */
  now?: () => number;
}

const DEFAULTS = { maxEntries: 10_000, maxAgeMs: 60_000 };

const keyOf = (token: string): string => createHash('sha256').update(token).digest('base64url');

/** Unix ms at which the (already verified) token expires, or null when it carries no usable exp. */
function expiryOf(token: string): number | null {
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : null;
  } catch {
    return null;
  }
}

export function createCachedVerifier(
  inner: TokenVerifier,
  options: CachedVerifierOptions = {},
): TokenVerifier {
  const maxEntries = options.maxEntries ?? DEFAULTS.maxEntries;
  const maxAgeMs = options.maxAgeMs ?? DEFAULTS.maxAgeMs;
  const now = options.now ?? Date.now;
  if (!(maxEntries >= 1) || !(maxAgeMs > 0))
    throw new RangeError('maxEntries must be at least 1 and maxAgeMs above 0');
  const entries = new ExpiringEntries<Principal>(maxEntries, now);
  // Concurrent first requests carrying one token share a single verification.
  const inFlight = new Map<string, Promise<Principal>>();

  function remember(key: string, token: string, principal: Principal): void {
    const expiry = expiryOf(token);
    if (expiry === null) return;
    const at = now();
    const expiresAt = Math.min(expiry, at + maxAgeMs);
    if (expiresAt > at) entries.set(key, principal, expiresAt);
  }

  return {
    // A backend reports seats now and then: its tokens are checked every time.
    verifyService: (token) => inner.verifyService(token),
    verify(token: string): Promise<Principal> {
      const key = keyOf(token);
      const known = entries.get(key);
      if (known !== undefined) return Promise.resolve(known);
      const pending = inFlight.get(key);
      if (pending !== undefined) return pending;
      const verification = (async () => inner.verify(token))()
        .then((principal) => {
          const kept = Object.freeze({ ...principal });
          remember(key, token, kept);
          return kept;
        })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, verification);
      return verification;
    },
  };
}
