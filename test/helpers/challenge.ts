/**
 * RFC 6750's challenge for a refused token: `invalid_token` and why, in printable ASCII
 * without quotes or backslashes so it cannot break out of the quoted string.
 */
export const INVALID_TOKEN_CHALLENGE =
  /^Bearer error="invalid_token", error_description="[\x20-\x21\x23-\x5b\x5d-\x7e]+"$/;
