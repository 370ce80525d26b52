// Whether a verified token is an access token, by its type (`typ`) and by the claims only another
// kind of token carries; and the refusal every check throws.
import type { JWTHeaderParameters, JWTPayload } from 'jose';
import { DomainError } from '../../domain/errors.ts';

export function invalid(reason: string): DomainError {
  return new DomainError('invalid_token', 'Invalid token', { reason });
}

// The types an access token goes by: RFC 9068's `at+jwt`, or the generic `JWT` many issuers put
// on every token. Any other is a token the issuer signs for something else (a logout token's
// `logout+jwt`, an introspection answer's `token-introspection+jwt`). Compared as media types are
// (RFC 7515 4.1.9): without case, `application/` implied. A token with no type is taken: ID tokens
// often have none, and an ID token is refused by its audience (the client's id, not the API's).
const ACCESS_TOKEN_TYPES = new Set(['jwt', 'at+jwt']);

export function checkType({ typ }: JWTHeaderParameters): void {
  if (typ === undefined) return;
  const type = String(typ)
    .toLowerCase()
    .replace(/^application\//, '');
  if (!ACCESS_TOKEN_TYPES.has(type))
    throw invalid(`not an access token: its type (typ) is ${JSON.stringify(typ).slice(0, 100)}`);
}

// What only another kind of token carries, whatever its type says: an ID token's `nonce` (OIDC
// Core 2), a logout token's `events` (OIDC Back-Channel Logout 2.4). Issuers that put no `typ` on
// their tokens, or `JWT` on all of them, are told apart by these.
const OTHER_TOKEN_CLAIMS = [
  ['nonce', 'an ID token (it carries a nonce)'],
  ['events', 'a logout token (it carries events)'],
] as const;

export function checkClaimsOfAccessToken(payload: JWTPayload): void {
  for (const [claim, kind] of OTHER_TOKEN_CLAIMS)
    if (payload[claim] !== undefined) throw invalid(`not an access token: ${kind}`);
}
