// PostgreSQL text cannot hold NUL, and a lone UTF-16 surrogate would be stored as U+FFFD, so two
// different values could become one. Input carrying either is refused at the edge.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}
