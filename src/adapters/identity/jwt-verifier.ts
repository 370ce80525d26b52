// Verifies access tokens with jose: signature against the issuer's keys, an allow-list of
// asymmetric algorithms (no HS*, no `none`), iss, aud, exp and nbf with a small clock tolerance.
// The development identity provider goes through exactly this code; only the key source differs.
import { errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { DomainError } from '../../domain/errors.ts';
import type { Principal } from '../../domain/model.ts';
import type { TokenVerifier } from '../../domain/ports/token-verifier.ts';
import { isStorableText } from '../storable-text.ts';

export const ALLOWED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
const CLOCK_TOLERANCE_SECONDS = 30;
// Loose on purpose (identity providers vouch for the address); it only keeps out what no address has.
const EMAIL_SHAPE = /^[^\s@\u0000-\u001f\u007f]+@[^\s@\u0000-\u001f\u007f]+$/;
const MAX_CLAIM_LENGTH = { sub: 255, email: 320 };
// Userinfo answers are kept per token until it expires: a client repeating its token must not cost
// a userinfo call per request (Auth0 allows a few per minute per user).
const USERINFO_CACHE_SIZE = 10_000;

export interface JwtVerifierOptions {
  issuer: string;
  audience: string;
  keys: JWTVerifyGetKey;
  emailClaim: string;
  /** Asked for the e-mail when the token carries none (the issuer's userinfo endpoint). */
  fetchEmail?: (token: string) => Promise<string | null>;
  onKeyFetchError?: (error: Error) => void;
}

function invalid(reason: string): DomainError {
  return new DomainError('invalid_token', 'Invalid token', { reason });
}

function claimText(payload: JWTPayload, claim: string, maxLength: number): string | null {
  const value = payload[claim];
  if (typeof value !== 'string' || value === '') return null;
  if (value.length > maxLength) throw invalid(`${claim} claim too long`);
  if (!isStorableText(value)) throw invalid(`${claim} claim has characters that cannot be stored`);
  return value;
}

function isKeyFetchFailure(error: unknown): error is Error {
  return error instanceof joseErrors.JWKSTimeout || (error instanceof Error && !(error instanceof joseErrors.JOSEError));
}

export function createJwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  const verifyOptions = {
    issuer: options.issuer,
    audience: options.audience,
    algorithms: ALLOWED_ALGORITHMS,
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    requiredClaims: ['exp', 'sub'],
  };
  const userinfoEmails = new Map<string, { email: string; expiresAt: number }>();
  async function emailFromIssuer(token: string, payload: JWTPayload): Promise<string | null> {
    if (!options.fetchEmail) return null;
    const cached = userinfoEmails.get(token);
    if (cached !== undefined && cached.expiresAt > Date.now()) return cached.email;
    let found: string | null;
    try {
      found = await options.fetchEmail(token);
    } catch {
      throw invalid('userinfo endpoint did not answer with an e-mail');
    }
    if (found !== null) {
      if (userinfoEmails.size >= USERINFO_CACHE_SIZE) userinfoEmails.delete(userinfoEmails.keys().next().value!);
      userinfoEmails.set(token, { email: found, expiresAt: payload.exp! * 1000 });
    }
    return found;
  }
  async function email(payload: JWTPayload, token: string): Promise<string> {
    const fromClaim = claimText(payload, options.emailClaim, MAX_CLAIM_LENGTH.email);
    const found = fromClaim ?? (await emailFromIssuer(token, payload));
    if (found === null || found.length > MAX_CLAIM_LENGTH.email) throw invalid('token carries no e-mail');
    if (!EMAIL_SHAPE.test(found)) throw invalid('e-mail claim is not an address');
    return found;
  }
  return {
    async verify(token: string): Promise<Principal> {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, options.keys, verifyOptions));
      } catch (error) {
        if (isKeyFetchFailure(error)) options.onKeyFetchError?.(error);
        throw invalid(error instanceof joseErrors.JOSEError ? error.code : 'verification failed');
      }
      const idpId = claimText(payload, 'sub', MAX_CLAIM_LENGTH.sub);
      if (idpId === null) throw invalid('token has no subject');
      return { idpId, email: await email(payload, token) };
    },
  };
}
