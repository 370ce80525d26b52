// The pages the embedded defaults send a buyer back to: any session_id, however odd (NUL, a
// repeated parameter, a huge value), gets a 4xx in the contract's shape, never a 500.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';

describe(`billing return pages (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const success = (query: string) =>
    t.app.inject({ method: 'GET', url: `/billing/success?${query}` });

  test('an unknown session id answers the page saying it was not found', async () => {
    const response = await success('session_id=cs_test_unknown');
    assert.equal(response.statusCode, 200);
    assert.match(response.body, /could not find this checkout session/);
  });

  for (const query of [
    'session_id=%00',
    'session_id=cs_%00x',
    'session_id=a&session_id=b',
    `session_id=${'x'.repeat(300)}`,
    'session_id=%F0%9F%92%A5',
  ]) {
    test(`session_id in "${query.slice(0, 40)}" answers 422 in the contract's shape`, async () => {
      const response = await success(query);
      assert.equal(response.statusCode, 422, response.body);
      assert.deepEqual(response.json().detail[0].loc, ['query', 'session_id']);
    });
  }
});
