// Development only: the token a person pastes into /billing, as they paste it. `npm run token`
// prints npm's own lines ("> billing-profile-service@0.1.0 token") above the token, and a token
// copied from a curl command carries "Bearer " before it: the JWT-shaped word is taken from what
// was pasted. A refusal then says what to do, not only why.
import { decodeJwt } from 'jose';

// A JWT's header is base64url of '{"...', so it starts with "eyJ"; three dot-separated parts.
const JWT_SHAPE = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/;

/** The token in `pasted`: its last JWT-shaped word, else the text without a `Bearer ` prefix. */
export function tokenFromPaste(pasted: string): string {
  const words = pasted.split(/\s+/).filter((word) => word !== '');
  const jwt = words.reverse().find((word) => JWT_SHAPE.test(word));
  return jwt ?? pasted.trim().replace(/^Bearer\s+/i, '');
}

/** The `sub` to mint for again: the refused token's own, when it has a plain one. */
function subOf(token: string | null): string {
  try {
    const sub = token === null ? undefined : decodeJwt(token).sub;
    return typeof sub === 'string' && /^[A-Za-z0-9_.@-]{1,64}$/.test(sub) ? sub : '<sub>';
  } catch {
    return '<sub>';
  }
}

/** What to do about a refused token (`reason` as the verifier says it), in a sentence. */
export function adviceFor(reason: string, token: string | null): string {
  const mint = `npm run token -- --sub ${subOf(token)}`;
  if (token === null) return `Run \`${mint}\` and paste what it prints.`;
  if (reason === 'token expired')
    return `Run \`${mint}\` again and paste the new token: this one expired.`;
  if (reason.startsWith('malformed'))
    return `Paste the token \`${mint}\` prints (its whole output, or the token alone, will do).`;
  if (/issuer|signing key|signature/.test(reason))
    return `This token was made for another service (another DATA_DIR or port): run \`${mint}\` in this service's directory, while it runs, and paste that.`;
  return `Run \`${mint}\` and paste the new token.`;
}
