// Promise: a client can choose the page the provider sends the user back to, never the site.
// Percent-encoded separators, look-alike hosts (homoglyphs, full-width and ideographic dots,
// punycode, a trailing dot, zero-width characters), userinfo in disguise, non-http schemes and
// over-long URLs are refused with 422 at the field's own `loc` (the tricks of
// test/billing/checkout.error.test.ts are not repeated here). And for any string at all, either the
// answer is that 422 or the URLs the provider receives resolve to the allowed origin.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';
import { RUNS, urlLike } from '../helpers/arbitraries.ts';

const ORIGIN = 'https://app.example.test';
const MAX_LENGTH = 2048;

const REFUSED = [
  // percent-encoded characters that would end the host early or smuggle userinfo
  'https://app.example.test%2eevil.example/x',
  'https://app.example.test%2Fevil.example/x',
  'https://app.example.test%40evil.example/x',
  'https://app.example.test%2F@evil.example/x',
  'https://evil.example%23@app.example.test/x',
  'https://evil.example%2F@app.example.test/x',
  'https://app.example.test%00.evil.example/x',
  'https://app.example.test%E3%80%82evil.example/x',
  'https://app.example.test%EF%BC%8Eevil.example/x',
  'http%3A%2F%2Fapp.example.test/x',
  'https%3A//app.example.test/x',
  // look-alike hosts
  'https://аpp.example.test/x', // Cyrillic а
  'https://app.exampIe.test/x', // capital I for l
  'https://xn--pp-6kc.example.test/x',
  'https://app.example.test./x',
  'https://app.example.test\u3002evil.example/x',
  'https://app.example.test\uff0eevil.example/x',
  'https://app-example.test/x',
  'https://app.example.testevil.example/x',
  'https://evil.example/app.example.test',
  'https://evil.example/?next=https://app.example.test/',
  // userinfo in disguise
  'https://app.example.test:@evil.example/x',
  'https://:@evil.example/x',
  'https://user:@app.example.test/x',
  'https://:password@app.example.test/x',
  // other schemes and scheme tricks
  'vbscript:msgbox(1)',
  'file:///etc/passwd',
  'blob:https://app.example.test/0f4c',
  'HTTPS:app.example.test/x',
  'https:/app.example.test/x',
  '\thttps://app.example.test/x',
  'https://app.example.test/x\n',
  // other ports, other hosts
  'https://app.example.test:8443/x',
  'https://app.example.test:65536/x',
  'https://0/x',
  'https://[::1]/x',
  'https://2130706433/x',
  // over-long
  `${ORIGIN}/${'a'.repeat(MAX_LENGTH)}`,
  `${ORIGIN}/?q=${'%41'.repeat(700)}`,
];

// Spellings of the allowed host itself that only a WHATWG parser reads as that host (IDNA maps
// full-width letters and dots, drops zero-width characters and soft hyphens). The service checks the
// parsed URL but passes the raw string on, so the provider and browsers must parse it the same way.
const NON_ASCII_SPELLINGS = [
  'https://ａpp.example.test/x',
  'https://app\uff0eexample.test/x',
  'https://app.example.test\u200b/x',
  'https://app.exam\u00adple.test/x',
];

/** Visible in a failure message: every character outside printable ASCII as \uXXXX. */
const shown = (url: string) =>
  url.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

describe(`redirect tricks in success_url and cancel_url (${databaseLabel})`, () => {
  let t: TestApp;
  let subjects = 0;
  before(async () => {
    t = await buildTestApp({ APP_URL: ORIGIN });
  });
  after(() => t.close());

  // A new subject per request: the per-user checkout limit must not stand in for the check under test.
  const checkout = async (body: unknown) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/billing/checkout',
      headers: {
        ...bearer(await t.token(`redirect-${databaseLabel}-${++subjects}`)),
        'content-type': 'application/json',
      },
      payload: JSON.stringify(body),
    });

  for (const field of ['success_url', 'cancel_url']) {
    test(`${field}: ${REFUSED.length} encoded, look-alike, disguised, foreign-scheme and over-long URLs are all refused with 422`, async () => {
      const accepted: string[] = [];
      for (const url of REFUSED) {
        const response = await checkout({ [field]: url });
        if (response.statusCode !== 422) {
          accepted.push(`${shown(url.slice(0, 80))} -> ${response.statusCode}`);
          continue;
        }
        const [item] = response.json().detail;
        assert.deepEqual(item.loc, ['body', field], url);
        assert.equal(item.type, 'url_not_allowed', url);
      }
      assert.deepEqual(accepted, [], 'every trick refused');
    });
  }

  test('non-ASCII spellings of the allowed host are refused with 422, not passed on raw', async () => {
    const accepted: string[] = [];
    for (const url of NON_ASCII_SPELLINGS) {
      const response = await checkout({ success_url: url });
      if (response.statusCode !== 422) accepted.push(`${shown(url)} -> ${response.statusCode}`);
    }
    assert.deepEqual(accepted, [], 'every spelling refused');
  });

  test('a return URL that is not well-formed Unicode (a lone surrogate) is refused with 422, not a 502 from the provider call', async () => {
    for (const url of [`${ORIGIN}/x\ud800`, `${ORIGIN}/#\udc00`, `${ORIGIN}/?q=\ud83d`]) {
      for (const field of ['success_url', 'cancel_url']) {
        const response = await checkout({ [field]: url });
        assert.equal(
          response.statusCode,
          422,
          `${field} ${shown(url)}: ${response.statusCode} ${response.body}`,
        );
        assert.deepEqual(response.json().detail[0].loc, ['body', field]);
      }
    }
  });

  test(`the length limit is exact: ${MAX_LENGTH} characters accepted, ${MAX_LENGTH + 1} refused`, async () => {
    const at = (length: number) => `${ORIGIN}/${'a'.repeat(length - ORIGIN.length - 1)}`;
    assert.equal((await checkout({ success_url: at(MAX_LENGTH) })).statusCode, 200);
    assert.equal((await checkout({ success_url: at(MAX_LENGTH + 1) })).statusCode, 422);
  });

  test('any string as a return URL: 422 at its field, or the provider gets URLs that resolve to the allowed origin', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          { success_url: urlLike(ORIGIN), cancel_url: urlLike(ORIGIN) },
          { requiredKeys: [] },
        ),
        async (body) => {
          const response = await checkout(body);
          assert.ok(
            [200, 422].includes(response.statusCode),
            `${response.statusCode} ${response.body.slice(0, 300)}`,
          );
          if (response.statusCode === 422) {
            for (const item of response.json().detail as { loc: string[] }[])
              assert.ok(item.loc[1]! in body, JSON.stringify(item.loc));
            return;
          }
          const session = await simulatorClient(t).checkout.sessions.retrieve(
            (response.json().url as string).split('/').pop()!,
          );
          for (const url of [session.success_url!, session.cancel_url!])
            assert.equal(new URL(url).origin, ORIGIN, url);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
