// GET /api/v1/billing/subscription refuses what users/me refuses, in the contract's shapes: no
// token, a bad one, another scheme: 401 with WWW-Authenticate, never 500; query parameters choose
// nothing. (503 and 500 are provoked in contract/error-statuses.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { INVALID_TOKEN_CHALLENGE } from '../helpers/challenge.ts';

describe(`GET /billing/subscription refusals (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const get = (headers: Record<string, string> = {}, query = '') =>
    t.app.inject({ method: 'GET', url: `/api/v1/billing/subscription${query}`, headers });

  test('no token: 401 Not authenticated with WWW-Authenticate: Bearer, and no user made', async () => {
    const response = await get();
    assert.equal(response.statusCode, 401);
    assert.deepEqual(response.json(), { detail: 'Not authenticated' });
    assert.equal(response.headers['www-authenticate'], 'Bearer');
    assert.equal(
      (await get({ authorization: 'Basic YWxpY2U6c2VjcmV0' })).json().detail,
      'Not authenticated',
    );
  });

  test('a bad, expired or wrongly signed token: 401 Invalid token', async () => {
    const expired = await t.token('sub-err', 'sub-err@example.com', { ttlSeconds: -3600 });
    for (const token of ['not.a.token', expired, `${await t.token('sub-err')}x`]) {
      const response = await get(bearer(token));
      assert.equal(response.statusCode, 401, token);
      assert.deepEqual(response.json(), { detail: 'Invalid token' });
      assert.match(String(response.headers['www-authenticate']), INVALID_TOKEN_CHALLENGE);
    }
    const users = await t.composition.db.query("SELECT 1 FROM users WHERE idp_id = 'sub-err'");
    assert.equal(users.length, 0);
  });

  test('query parameters change nothing', async () => {
    const response = await get(
      bearer(await t.token('sub-query')),
      '?tier=team&plan=team&trial_eligible=true&features=sso',
    );
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.deepEqual([body.tier, body.plan, body.trial_eligible], ['free', 'pro', false]);
    assert.deepEqual(body.features, ['core']);
  });
});
