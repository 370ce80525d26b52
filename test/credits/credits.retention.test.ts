// Retention of credits (contract section 14): a spend's idempotency key answers its repeats for 7
// days and is forgotten after (the same key then spends anew); ledger entries are kept as long as
// the subject exists, however old.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEV_SERVICE_CLIENT } from '../../src/config.ts';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';

describe(`credits retention (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const spend = async (key: string, amount = 5) => {
    const token = await t.token('backend', undefined, {
      email: undefined,
      extra: { client_id: DEV_SERVICE_CLIENT, scope: 'billing:credits', gty: 'client-credentials' },
    });
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credits/spend',
      headers: bearer(token),
      payload: { subject: { type: 'user', idp_id: 'kept-kim' }, amount, idempotency_key: key },
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json().balance as number;
  };

  test('a key older than 7 days is forgotten (the same key spends anew), a younger one kept; entries stay', async () => {
    const { db } = t.composition;
    assert.equal(await spend('key-old'), 95);
    assert.equal(await spend('key-young'), 90);
    await db.exec(`
      UPDATE credit_spends SET created_at = now() - interval '7 days 1 hour'
        WHERE idempotency_key = 'key-old';
      UPDATE credit_spends SET created_at = now() - interval '6 days 23 hours'
        WHERE idempotency_key = 'key-young';
      UPDATE credit_entries SET at = now() - interval '400 days';`);
    await t.composition.jobs.retention.look();
    assert.deepEqual(
      (
        await db.query<{ idempotency_key: string }>(
          'SELECT idempotency_key FROM credit_spends ORDER BY idempotency_key',
        )
      ).map((r) => r.idempotency_key),
      ['key-young'],
    );
    assert.equal(await spend('key-young'), 90, 'a key within 7 days still answers as first');
    assert.equal(await spend('key-old'), 85, 'a forgotten key is a new spend');
    const ledger = await t.app.inject({
      method: 'GET',
      url: '/api/v1/credits/ledger?limit=200',
      headers: bearer(await t.token('kept-kim')),
    });
    assert.deepEqual(
      (ledger.json().entries as { kind: string }[]).map((e) => e.kind).sort(),
      ['grant', 'spend', 'spend', 'spend'],
      'every entry kept, the 400-day-old ones included',
    );
  });
});
