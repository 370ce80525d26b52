// GET /api/v1/credits/ledger (contract section 14): the entries newest first, a page of `limit`
// at a time, `next` the entry to read on from (`before`) and null after the oldest, so that reading
// page after page gives every entry exactly once, in order. Entry ids are numbers written as
// strings: "newest first" is by their value (10 is newer than 9), whatever their length.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEV_SERVICE_CLIENT } from '../../src/config.ts';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';

interface Entry {
  id: string;
  at: string;
  kind: string;
  amount: number;
  balance_after: number;
  reason: string | null;
}

const SPENDS = 14;

describe(`the credit ledger (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
    // The free month's grant (100, on the first read), then 14 spends of 1: 15 entries, whose ids
    // on this fresh database run from one digit to two.
    const read = await t.app.inject({
      method: 'GET',
      url: '/api/v1/credits',
      headers: bearer(await t.token('ledger-reader')),
    });
    assert.equal(read.json().balance, 100);
    const token = await t.token('backend', undefined, {
      email: undefined,
      extra: { client_id: DEV_SERVICE_CLIENT, scope: 'billing:credits', gty: 'client-credentials' },
    });
    for (let i = 0; i < SPENDS; i++) {
      const spent = await t.app.inject({
        method: 'POST',
        url: '/api/v1/credits/spend',
        headers: bearer(token),
        payload: {
          subject: { type: 'user', idp_id: 'ledger-reader' },
          amount: 1,
          idempotency_key: `ledger-${i}`,
          reason: `spend ${i}`,
        },
      });
      assert.equal(spent.statusCode, 200, spent.body);
    }
  });
  after(() => t.close());

  const page = async (query: string): Promise<{ entries: Entry[]; next: string | null }> => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/credits/ledger?${query}`,
      headers: bearer(await t.token('ledger-reader')),
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };

  test('newest first: the last spend on top, the grant at the bottom, ids descending by value', async () => {
    const { entries, next } = await page('limit=200');
    assert.equal(next, null);
    assert.equal(entries.length, SPENDS + 1);
    const ids = entries.map((e) => Number(e.id));
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => b - a),
      `ids newest first: ${entries.map((e) => e.id).join(', ')}`,
    );
    assert.deepEqual(
      entries.map((e) => e.reason),
      [
        ...Array.from({ length: SPENDS }, (_, i) => `spend ${SPENDS - 1 - i}`),
        entries.at(-1)!.reason,
      ],
    );
    assert.equal(entries.at(-1)!.kind, 'grant');
    assert.deepEqual(
      entries.map((e) => e.balance_after),
      Array.from({ length: SPENDS + 1 }, (_, i) => 100 - SPENDS + i),
    );
  });

  test('page after page (limit=4, then before=next): every entry once, in order, next null at the end', async () => {
    const all = (await page('limit=200')).entries;
    const seen: Entry[] = [];
    let query = 'limit=4';
    for (let pages = 0; pages < 10; pages++) {
      const { entries, next } = await page(query);
      seen.push(...entries);
      if (next === null) break;
      assert.equal(next, entries.at(-1)!.id, 'next is the last entry of the page');
      query = `limit=4&before=${next}`;
    }
    assert.deepEqual(
      seen.map((e) => e.id),
      all.map((e) => e.id),
    );
    assert.equal(new Set(seen.map((e) => e.id)).size, SPENDS + 1);
    const balances = seen.map((e) => e.balance_after);
    assert.deepEqual(
      balances,
      [...balances].sort((a, b) => a - b),
      'from the newest balance down to the first',
    );
  });

  test('a page exactly as long as what is left says next: null', async () => {
    const whole = await page(`limit=${SPENDS + 1}`);
    assert.equal(whole.entries.length, SPENDS + 1);
    assert.equal(whole.next, null);
    const short = await page(`limit=${SPENDS}`);
    assert.equal(short.entries.length, SPENDS);
    assert.equal(short.next, short.entries.at(-1)!.id);
    const rest = await page(`limit=5&before=${short.next}`);
    assert.deepEqual(
      rest.entries.map((e) => e.kind),
      ['grant'],
    );
    assert.equal(rest.next, null);
  });
});
