// The `WWW-Authenticate` challenge of a refused token (RFC 6750 section 3), which says why.
/**
 * RFC 6750's challenge for a refused token, saying why (expired, wrong audience...) in
 * `error_description`, whose characters the RFC limits to printable ASCII without `"` or `\`.
 */
export function invalidTokenChallenge(reason: unknown): string {
  const why = String(reason ?? 'the token was refused')
    .replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, "'")
    .slice(0, 200);
  return `Bearer error="invalid_token", error_description="${why}"`;
}
