// /billing takes a token as people paste it: with a `Bearer ` prefix, or inside the whole output of
// `npm run token` (npm's own lines above it); and a refused one is told what to do, not only why.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { landing, postForm } from '../helpers/billing-forms.ts';
import { databaseLabel } from '../helpers/database.ts';

describe(`/billing takes a pasted token as pasted (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  /** The checkout form posted with `pasted`: where it sends the browser. */
  const checkoutWith = async (pasted: string) => {
    const posted = await postForm(t, '/billing/checkout', { token: pasted });
    assert.equal(posted.statusCode, 303, posted.body);
    return String(posted.headers.location);
  };

  test('a token with "Bearer " before it signs in', async () => {
    const token = await t.token('paste-bearer');
    assert.match(await checkoutWith(`Bearer ${token}`), /\/checkout\/cs_/);
  });

  test("npm's whole output around the token signs in", async () => {
    const token = await t.token('paste-npm');
    const output = `\n> billing-profile-service@0.1.0 token\n> tsx src/cli/main.ts token --sub paste-npm\n\n${token}\n`;
    assert.match(await checkoutWith(output), /\/checkout\/cs_/);
  });

  test('an expired token is told to mint one again, for its own sub', async () => {
    const late = await t.token('paste-late', undefined, { ttlSeconds: -120 });
    const posted = await postForm(t, '/billing/checkout', { token: late });
    assert.equal(posted.headers.location, '/billing');
    const page = (await landing(t, posted)).body;
    assert.match(
      page,
      /Invalid token: token expired\. Run `npm run token -- --sub paste-late` again and paste the new token: this one expired\./,
    );
  });

  test('nothing pasted is told how to get a token', async () => {
    const page = (await landing(t, await postForm(t, '/billing/checkout', { token: '' }))).body;
    assert.match(page, /Not authenticated: [^<]*\. Run `npm run token -- --sub &lt;sub&gt;`/);
  });
});
