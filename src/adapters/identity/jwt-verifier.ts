// Verifies access tokens with jose: signature against the issuer's keys, an allow-list of
// asymmetric algorithms (no HS*, no `none`), iss, aud, exp and nbf with a small clock tolerance,
// and a type (`typ`) of an access token, or none, with no claim only another kind of token has.
// The development identity provider goes through exactly this code; only the key source differs.
import { createHash } from 'node:crypto';
import { jwtVerify, type JWTHeaderParameters, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Principal, ServiceCaller } from '../../domain/model/callers.ts';
import type { TokenVerifier } from '../../domain/ports/token-verifier.ts';
import { isStorableText } from '../storable-text.ts';
import { ExpiringEntries } from './expiring-entries.ts';
import { issuerMismatch } from './issuer-first.ts';
import type { UserinfoAnswer } from './oidc-issuer.ts';
import {
  claimAt,
  organizationOf,
  scopesOf,
  type OrganizationClaimPaths,
} from './organization-claims.ts';
import { refusalReason } from './refusal-reason.ts';
import { checkClaimsOfAccessToken, checkType, invalid } from './token-kind.ts';

export const ALLOWED_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];
const CLOCK_TOLERANCE_SECONDS = 30;
// Loose on purpose (identity providers vouch for the address); it only keeps out what no address has.
const EMAIL_SHAPE = /^[^\s@\u0000-\u001f\u007f]+@[^\s@\u0000-\u001f\u007f]+$/;
const MAX_CLAIM_LENGTH = { sub: 255, email: 320 };
// Userinfo answers are kept per token (by its hash), bounded: an e-mail until the token expires, no
// e-mail or a failure (a 429, say) for a minute. A client repeating its token must not cost a
// userinfo call per request (Auth0 allows a few per minute per user).
const USERINFO_CACHE_SIZE = 10_000;
const USERINFO_PROBLEM_TTL_MS = 60_000;

export interface JwtVerifierOptions {
  issuer: string;
  audience: string;
  keys: JWTVerifyGetKey;
  emailClaim: string;
  /** Asked for the e-mail when the token carries none (the issuer's userinfo endpoint). */
  fetchEmail?: (token: string) => Promise<UserinfoAnswer>;
  /** Where tokens name the caller's organisation and role; null or absent: organisations off. */
  organizations?: OrganizationClaimPaths | null;
}

function claimText(payload: JWTPayload, claim: string, maxLength: number): string | null {
  const value = payload[claim];
  if (typeof value !== 'string' || value === '') return null;
  if (value.length > maxLength) throw invalid(`${claim} claim too long`);
  if (!isStorableText(value)) throw invalid(`${claim} claim has characters that cannot be stored`);
  return value;
}

/** What in the claims a backend's token never carries (domain/service-caller.ts). */
function personalClaims(
  payload: JWTPayload,
  emailClaim: string,
  organizations: OrganizationClaimPaths | null,
): string[] {
  const found: string[] = [];
  if (organizations !== null && claimAt(payload, organizations.claim) !== undefined)
    found.push(`an organisation (${organizations.claim})`);
  if (payload[emailClaim] !== undefined) found.push(`an e-mail (${emailClaim})`);
  if (payload.gty !== undefined && payload.gty !== 'client-credentials')
    found.push(`another grant (gty ${JSON.stringify(payload.gty).slice(0, 60)})`);
  return found;
}

export function createJwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  const verifyOptions = {
    issuer: options.issuer,
    audience: options.audience,
    algorithms: ALLOWED_ALGORITHMS,
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    requiredClaims: ['exp', 'sub'],
  };
  const userinfo = new ExpiringEntries<UserinfoAnswer>(USERINFO_CACHE_SIZE);
  async function askUserinfo(token: string, payload: JWTPayload): Promise<UserinfoAnswer> {
    if (!options.fetchEmail) return { problem: 'no userinfo endpoint to ask' };
    const key = createHash('sha256').update(token).digest('base64url');
    const cached = userinfo.get(key);
    if (cached !== undefined) return cached;
    const answer = await options.fetchEmail(token);
    const expiresAt =
      'email' in answer
        ? payload.exp! * 1000
        : Math.min(payload.exp! * 1000, Date.now() + USERINFO_PROBLEM_TTL_MS);
    userinfo.set(key, answer, expiresAt);
    return answer;
  }
  async function email(payload: JWTPayload, token: string): Promise<string> {
    let found = claimText(payload, options.emailClaim, MAX_CLAIM_LENGTH.email);
    if (found === null) {
      const answer = await askUserinfo(token, payload);
      if ('problem' in answer)
        throw invalid(`token has no "${options.emailClaim}" claim and ${answer.problem}`);
      found = answer.email;
    }
    if (found.length > MAX_CLAIM_LENGTH.email) throw invalid('e-mail too long');
    if (!EMAIL_SHAPE.test(found)) throw invalid('e-mail claim is not an address');
    return found;
  }
  /** The token's claims once verified, with its subject. */
  async function verified(token: string): Promise<{ payload: JWTPayload; idpId: string }> {
    const mismatch = issuerMismatch(token, options.issuer);
    if (mismatch !== null) throw invalid(mismatch);
    let payload: JWTPayload;
    let protectedHeader: JWTHeaderParameters;
    try {
      ({ payload, protectedHeader } = await jwtVerify(token, options.keys, verifyOptions));
    } catch (error) {
      throw invalid(refusalReason(error));
    }
    checkType(protectedHeader);
    checkClaimsOfAccessToken(payload);
    const idpId = claimText(payload, 'sub', MAX_CLAIM_LENGTH.sub);
    if (idpId === null) throw invalid('token has no subject');
    return { payload, idpId };
  }
  const organizations = options.organizations ?? null;
  return {
    async verify(token: string): Promise<Principal> {
      const { payload, idpId } = await verified(token);
      const organization = organizations === null ? null : organizationOf(payload, organizations);
      return { idpId, email: await email(payload, token), organization };
    },
    async verifyService(token: string): Promise<ServiceCaller> {
      const { payload } = await verified(token);
      return {
        scopes: scopesOf(payload),
        client: claimText(payload, 'client_id', 255) ?? claimText(payload, 'azp', 255),
        personal: personalClaims(payload, options.emailClaim, organizations),
      };
    },
  };
}
