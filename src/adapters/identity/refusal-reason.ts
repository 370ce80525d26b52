// Why a token was refused, in words an operator can act on (expired, wrong audience, unknown key,
// bad signature...; a wrong issuer is caught before, by issuer-first.ts), for the log line of every
// 401. Claim values shown are the token's iss/aud/alg only, cut short; never the token itself.
import { errors as joseErrors } from 'jose';
import { KeySetUnavailable } from './remote-key-set.ts';

export const shown = (value: unknown): string => JSON.stringify(value)?.slice(0, 200) ?? 'nothing';

function claimFailure(error: joseErrors.JWTClaimValidationFailed): string {
  if (error.reason === 'missing') return `token has no "${error.claim}" claim`;
  switch (error.claim) {
    case 'aud':
      return `wrong audience: token says ${shown(error.payload.aud)}`;
    case 'nbf':
      return 'token not valid yet (nbf)';
    default:
      return `claim "${error.claim}" refused: ${error.message}`;
  }
}

export function refusalReason(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'token expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) return claimFailure(error);
  if (error instanceof joseErrors.JWKSNoMatchingKey)
    return "unknown signing key: no published key has the token's kid";
  if (error instanceof joseErrors.JWKSMultipleMatchingKeys)
    return "several published keys match the token's kid";
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'bad signature';
  if (error instanceof joseErrors.JOSEAlgNotAllowed)
    return 'signing algorithm not allowed (only asymmetric ones are)';
  if (error instanceof joseErrors.JWTInvalid || error instanceof joseErrors.JWSInvalid)
    return `malformed token: ${error.message}`;
  if (error instanceof KeySetUnavailable) return error.message;
  if (error instanceof joseErrors.JOSEError) return `${error.code}: ${error.message}`;
  return `keys unavailable: ${error instanceof Error ? error.message : String(error)}`;
}
