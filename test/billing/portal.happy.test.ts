// POST /api/v1/billing/portal through the real stripe SDK against the embedded simulator: a user
// who checked out gets the address of a billing-portal session for their own customer, coming
// back to APP_URL/billing unless they chose another allowed page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';

describe(`billing portal (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ APP_URL: 'https://app.example.test' });
  });
  after(() => t.close());

  const call = async (sub: string, path: string, payload: object = {}) =>
    t.app.inject({
      method: 'POST',
      url: `/api/v1/billing/${path}`,
      headers: bearer(await t.token(sub)),
      payload,
    });
  const portalPage = async (url: string) => (await fetch(url)).text();

  test("after a checkout: 200 with a portal session for the user's customer, returning to APP_URL/billing", async () => {
    assert.equal((await call('rita', 'checkout')).statusCode, 200);
    const response = await call('rita', 'portal');
    assert.equal(response.statusCode, 200);
    const { url } = response.json();
    assert.match(url, new RegExp(`^${t.composition.simulatorUrl}/p/session/bps_\\w+$`));
    const page = await portalPage(url);
    assert.match(page, /rita@example\.com/);
    assert.match(page, /href="https:\/\/app\.example\.test\/billing"/);
  });

  test('an allowed return_url is where the portal leads back; unknown fields change nothing', async () => {
    await call('sam', 'checkout');
    const response = await call('sam', 'portal', {
      return_url: 'https://app.example.test/account?tab=billing',
      customer: 'cus_someone_else',
    });
    assert.equal(response.statusCode, 200);
    const page = await portalPage(response.json().url);
    assert.match(page, /href="https:\/\/app\.example\.test\/account\?tab=billing"/);
    assert.match(page, /sam@example\.com/);
  });

  test('each call opens a new session', async () => {
    await call('tess', 'checkout');
    const first = (await call('tess', 'portal')).json().url;
    const second = (await call('tess', 'portal')).json().url;
    assert.notEqual(first, second);
  });
});
