// The per-user limits' counts stay bounded: any key is counted (a subject of 10 kB too, where the
// primary key's index takes at most about 2.7 kB), and windows that have expired leave the table
// as other keys are counted, not an hour later, however many keys come and go.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createRateLimitCounts } from '../../src/adapters/database/rate-limit-counts.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';

const KEYS = 300;

describe(`per-user limit counts stay bounded (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const rows = async () =>
    (
      await t.composition.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM rate_limit_counts',
      )
    )[0]!.n;

  test('a key of 10 kB is counted, apart from another that differs only at its end', async () => {
    const counts = createRateLimitCounts(t.composition.db);
    // Random, so that PostgreSQL cannot compress it into the index.
    const long = `checkout:${randomBytes(5_000).toString('hex')}`;
    assert.deepEqual(
      [await counts.hit(long, 60_000), await counts.hit(long, 60_000)].map((hit) => hit.hits),
      [1, 2],
    );
    assert.equal((await counts.hit(`${long}y`, 60_000)).hits, 1);
  });

  test(`${KEYS} new keys after ${KEYS} expired windows: the expired ones are gone`, async () => {
    const counts = createRateLimitCounts(t.composition.db);
    await t.composition.db.query('DELETE FROM rate_limit_counts');
    for (let i = 0; i < KEYS; i++) await counts.hit(`checkout:gone-${randomUUID()}`, 100);
    await new Promise((resolve) => setTimeout(resolve, 150));
    for (let i = 0; i < KEYS; i++) await counts.hit(`checkout:new-${randomUUID()}`, 60_000);
    assert.equal(await rows(), KEYS);
    const left = await t.composition.db.query(
      "SELECT 1 FROM rate_limit_counts WHERE key LIKE 'checkout:gone-%'",
    );
    assert.equal(left.length, 0);
  });
});
