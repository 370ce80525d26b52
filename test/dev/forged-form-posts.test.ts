// The /billing forms verify the token before anything counts: a forged post (unsigned, signed by
// another key, for another issuer, naming someone) is explained and counted nowhere, so it cannot
// use up the per-user limit of the user it names, which the forms share with the API. No token,
// however long or malformed, in the form or in the cookie, gets anything but a page saying why.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { devIssuerUrl, signToken } from '../../src/dev/identity-provider.ts';
import { generateSigningKey } from '../../src/dev/signing-key.ts';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { landing, postForm, setCookies, type Injected } from '../helpers/billing-forms.ts';
import { databaseLabel } from '../helpers/database.ts';

const FORMS = ['/billing/checkout', '/billing/portal'];
const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** A token with no signature that names `sub`: anyone can write one. */
const unsigned = (sub: string) =>
  `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ sub, exp: 4_102_444_800 })}.`;

describe(`forged and odd tokens on the /billing forms (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ BILLING_CHECKOUT_RATE_LIMIT: '3' });
  });
  after(() => t.close());

  const post = (path: string, token: string) => postForm(t, path, { token });
  /** The refusal /billing shows after the post, the token forgotten. */
  const refusal = async (posted: Injected) => {
    assert.match(setCookies(posted).join('\n'), /billing_dev_token=; .*Max-Age=0/);
    return (await landing(t, posted)).body;
  };
  const limitKeys = async () =>
    (await t.composition.db.query<{ key: string }>('SELECT key FROM rate_limit_counts')).map(
      (row) => row.key,
    );
  /** Tokens naming `sub` that this service must refuse. */
  const forgeriesOf = async (sub: string) => [
    unsigned(sub),
    await t.token(sub, undefined, { issuer: 'https://elsewhere.example/' }),
    (await t.token(sub)).slice(0, -6) + 'AAAAAA',
    await signToken(await generateSigningKey(), {
      sub,
      issuer: devIssuerUrl(t.config.host, t.config.port),
      audience: t.config.identity.audience,
    }),
  ];

  test("25 forged posts naming a user leave that user's API checkout and portal alone", async () => {
    const forgeries = await forgeriesOf('victim');
    for (let i = 0; i < 25; i++)
      assert.match(
        await refusal(await post(FORMS[i % 2]!, forgeries[i % forgeries.length]!)),
        /<p class="error">Invalid token: /,
      );
    const victim = await t.token('victim');
    const api = (operation: string) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/billing/${operation}`,
        headers: bearer(victim),
        payload: {},
      });
    assert.equal((await api('checkout')).statusCode, 200);
    assert.equal((await api('portal')).statusCode, 200);
  });

  test('a forged post is explained, and counted nowhere', async () => {
    const before = await limitKeys();
    for (const forged of await forgeriesOf('bystander'))
      for (const path of FORMS) {
        const refused = await refusal(await post(path, forged));
        assert.match(refused, /<p class="error">Invalid token: [^<]+\.<\/p>/, path);
      }
    assert.deepEqual(await limitKeys(), before);
  });

  test('a 10 kB subject, a huge or malformed token: a page saying why, in the form or the cookie, never a 500', async () => {
    const tokens = [
      await t.token('s'.repeat(10_000), 'big@example.com'),
      'garbage',
      'a.b.c',
      '...',
      '%00%ff',
      // An issuer that the refusal cuts short in the middle of a character.
      `${base64url({ alg: 'ES256' })}.${base64url({ iss: `${'i'.repeat(198)}\u{1f4a5}`, sub: 'x' })}.sig`,
      '\u00e9\u{1f4a5}.x.y',
      `${base64url({ alg: 'ES256', kid: 'k'.repeat(8_000) })}.${base64url({ sub: 'x' })}.sig`,
      'x'.repeat(15_000),
      'x'.repeat(40_000),
    ];
    for (const token of tokens)
      for (const path of FORMS) {
        const what = `${path} with ${token.slice(0, 20)}… (${token.length} chars)`;
        const page = await landing(t, await post(path, token));
        assert.equal(page.statusCode, 200, what);
        assert.match(
          page.body,
          /<p class="error">(Invalid token: |What was posted is too long)/,
          what,
        );
      }
    for (const token of tokens.filter((token) => /^[\x21-\x7e]{1,8000}$/.test(token))) {
      const page = await t.app.inject({
        method: 'GET',
        url: '/billing',
        headers: { cookie: `billing_dev_token=${token}` },
      });
      assert.equal(page.statusCode, 401, token.slice(0, 20));
      assert.match(page.body, /<p class="error">Invalid token: [^<]+<\/p>/);
    }
  });
});
