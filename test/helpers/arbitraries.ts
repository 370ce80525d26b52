// fast-check generators for hostile input, shared by the property tests: header values a client
// can put on the wire, URL-like strings aimed at an allowed origin, and bodies that are anything
// from valid JSON to binary noise.
import fc from 'fast-check';

/** Runs per property: enough to find the usual suspects, few enough to keep the folder fast. */
export const RUNS = Number(process.env.RELIABILITY_RUNS ?? 150);

/** What Node lets a client send in a header value: tab, printable ASCII, and Latin-1 high bytes. */
export const headerValue = fc.string({
  unit: fc.oneof(
    {
      weight: 8,
      arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    },
    { weight: 1, arbitrary: fc.constantFrom('\t', '\u00a0', '\u00ff', '\u0080') },
  ),
  maxLength: 300,
});

/** Extra header names that cannot collide with the ones HTTP itself interprets. */
export const extraHeaders = fc.dictionary(fc.stringMatching(/^x-[a-z0-9-]{1,20}$/), headerValue, {
  maxKeys: 4,
});

/** Any text, including lone surrogates, NUL and other control characters. */
export const anyText = fc.string({ unit: 'binary', maxLength: 200 });

/** Strings an attacker would try as a return URL against the allowed origin `origin`. */
export function urlLike(origin: string): fc.Arbitrary<string> {
  const { host } = new URL(origin);
  const tricks = fc.constantFrom(
    '//',
    '\\',
    '@',
    '%2e',
    '%2E',
    '%40',
    '%2f',
    '%5c',
    '%00',
    '%23',
    '#',
    '?',
    ':',
    '.',
    '..',
    '\u3002',
    '\uff0e',
    '\u200b',
    'evil.example',
    `${host}.evil.example`,
    `evil.example/${host}`,
    `user:pw@`,
    `${host}@`,
    ':443',
    ':0',
    ':65536',
    '[::1]',
    '0x7f.1',
  );
  const piece = fc.oneof(
    tricks,
    fc.string({ maxLength: 8 }),
    anyText.map((s) => s.slice(0, 4)),
  );
  return fc.oneof(
    fc.webUrl({ withFragments: true, withQueryParameters: true }),
    fc
      .tuple(
        fc.constantFrom(
          `${origin}`,
          `${origin}/`,
          'https://',
          'http://',
          '//',
          'HTTPS://',
          'javascript:',
          'data:',
          '',
        ),
        fc.array(piece, { maxLength: 5 }),
      )
      .map(([start, parts]) => start + parts.join('')),
    fc
      .tuple(
        fc.constantFrom(`https://`, `https://${host}`),
        fc.array(piece, { maxLength: 4 }),
        fc.constantFrom('', '/x', `/${'a'.repeat(2100)}`),
      )
      .map(([start, parts, end]) => start + parts.join('') + end),
    anyText,
  );
}

/** A JSON value of any shape, for fields that expect something else. */
export const anyJson = fc.jsonValue({ maxDepth: 3 });
