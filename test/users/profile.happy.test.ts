// GET /api/v1/users/me: the profile is created on first access, stable after, and follows the
// identity provider's e-mail.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}:\d{2}$/;

describe(`profile (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const me = async (token: string) =>
    t.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(token) });

  test('first access creates a free profile with the documented shape', async () => {
    const response = await me(await t.token('alice', 'alice@example.com'));
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.deepEqual(Object.keys(body).sort(), ['created_at', 'email', 'id', 'idp_id', 'tier']);
    assert.match(body.id, UUID);
    assert.equal(body.idp_id, 'alice');
    assert.equal(body.email, 'alice@example.com');
    assert.equal(body.tier, 'free');
    assert.match(body.created_at, ISO_WITH_OFFSET);
    assert.ok(Math.abs(Date.parse(body.created_at) - Date.now()) < 60_000);
  });

  test('the second call returns the same profile', async () => {
    const token = await t.token('bob');
    const first = (await me(token)).json();
    const second = (await me(token)).json();
    assert.deepEqual(second, first);
  });

  test('a changed e-mail at the identity provider is taken over, the rest kept', async () => {
    const first = (await me(await t.token('carol', 'carol@old.example'))).json();
    const second = (await me(await t.token('carol', 'carol@new.example'))).json();
    assert.equal(second.email, 'carol@new.example');
    assert.equal(second.id, first.id);
    assert.equal(second.created_at, first.created_at);
    const rows = await t.composition.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM users WHERE idp_id = 'carol'",
    );
    assert.equal(rows[0]!.n, 1);
  });

  test('different subjects get different users', async () => {
    const a = (await me(await t.token('dave'))).json();
    const b = (await me(await t.token('erin'))).json();
    assert.notEqual(a.id, b.id);
  });

  test('50 concurrent first requests for one subject create exactly one user', async () => {
    const token = await t.token('frank');
    const responses = await Promise.all(Array.from({ length: 50 }, () => me(token)));
    assert.deepEqual([...new Set(responses.map((r) => r.statusCode))], [200]);
    assert.equal(new Set(responses.map((r) => r.json().id)).size, 1);
    const rows = await t.composition.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM users WHERE idp_id = 'frank'",
    );
    assert.equal(rows[0]!.n, 1);
  });
});
