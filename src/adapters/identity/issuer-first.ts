// The issuer is compared before the signing key is looked up, so a token from another issuer
// (another DATA_DIR's development identity provider, another tenant) is refused for what it is,
// with both issuers named, rather than as an unknown key, and never makes the key set refetch.
// The claim is read unverified: this check only refuses; whatever passes is still verified whole.
import { decodeJwt } from 'jose';
import { shown } from './refusal-reason.ts';

/** Why the token's issuer is not `expected`; null when it is, or when the token cannot be read. */
export function issuerMismatch(token: string, expected: string): string | null {
  let claimed: unknown;
  try {
    claimed = decodeJwt(token).iss;
  } catch {
    return null; // malformed: the verification says how
  }
  if (claimed === expected) return null;
  const says = claimed === undefined ? 'has no "iss" claim' : `says ${shown(claimed)}`;
  return `wrong issuer: token ${says}, expected ${shown(expected)}`;
}
