// PUT /orgs/{idp_org_id}/seats: with BILLING_SEATS=reported, the application's backend reports a
// count with a service token; an end user's token, even a manager's, is refused; a report older
// than the stored one changes nothing; an organisation not seen yet is made; the count (never below
// BILLING_SEAT_MINIMUM) is what a checkout sells. With another BILLING_SEATS: 409.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEV_SERVICE_CLIENT } from '../../src/config.ts';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { memberToken, orgBilling, orgPost } from '../helpers/organizations.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';

const report = async (t: TestApp, token: string | null, org: string, body: unknown) =>
  t.app.inject({
    method: 'PUT',
    url: `/api/v1/orgs/${encodeURIComponent(org)}/seats`,
    headers: token === null ? {} : bearer(token),
    payload: body as object,
  });
/** The development backend's token (the client BILLING_SERVICE_CLIENTS defaults to), no e-mail. */
const serviceToken = (
  t: TestApp,
  claims: Record<string, unknown> = { scope: 'openid billing:seats' },
) =>
  t.token('backend', undefined, {
    email: undefined,
    extra: { client_id: DEV_SERVICE_CLIENT, ...claims },
  });

describe(`seat reports (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ BILLING_SEATS: 'reported', BILLING_SEAT_MINIMUM: '5' });
  });
  after(() => t.close());

  const soldQuantity = async (sub: string, org: string) => {
    const response = await orgPost(t, sub, { org, role: 'owner' }, 'checkout');
    assert.equal(response.statusCode, 200, response.body);
    const id = response.json().url.split('/').pop();
    return (await simulatorClient(t).checkout.sessions.listLineItems(id)).data[0]!.quantity;
  };

  test('before any report a checkout sells the minimum; then the count reported', async () => {
    assert.equal(await soldQuantity('acme-owner', 'acme'), 5);
    const stored = await report(t, await serviceToken(t), 'acme', {
      count: 12,
      as_of: '2026-05-01T10:00:00Z',
    });
    assert.equal(stored.statusCode, 200, stored.body);
    assert.deepEqual(stored.json(), {
      applied: true,
      reported: 12,
      as_of: '2026-05-01T10:00:00.000+00:00',
    });
    assert.deepEqual((await orgBilling(t, 'acme-owner', { org: 'acme' })).seats, {
      active: 1,
      reported: 12,
      billed: null,
    });
    assert.equal(await soldQuantity('acme-owner', 'acme'), 12);
    const small = await report(t, await serviceToken(t), 'acme', {
      count: 2,
      as_of: '2026-05-02T00:00:00Z',
    });
    assert.equal(small.json().reported, 2);
    assert.equal(await soldQuantity('acme-owner', 'acme'), 5, 'never below the minimum');
  });

  test('a report older than the stored one: 200, no effect', async () => {
    const older = await report(t, await serviceToken(t), 'acme', {
      count: 40,
      as_of: '2026-04-01T00:00:00+02:00',
    });
    assert.equal(older.statusCode, 200);
    assert.deepEqual(older.json(), {
      applied: false,
      reported: 2,
      as_of: '2026-05-02T00:00:00.000+00:00',
    });
  });

  test('an organisation not seen yet is made, as on first sight; scp as a list works too', async () => {
    const response = await report(t, await serviceToken(t, { scp: ['billing:seats'] }), 'newco', {
      count: 3,
      as_of: '2026-05-01T00:00:00Z',
    });
    assert.equal(response.statusCode, 200, response.body);
    const [row] = await t.composition.db.query<{ reported: number }>(
      `SELECT s.reported FROM organizations o JOIN organization_seats s ON s.organization_id = o.id
       WHERE o.idp_org_id = 'newco'`,
    );
    assert.equal(row!.reported, 3);
    assert.equal((await orgBilling(t, 'newco-member', { org: 'newco' })).seats.reported, 3);
  });

  test("an end user's token, even a manager's of that organisation: 403, nothing stored", async () => {
    const body = { count: 99, as_of: '2026-06-01T00:00:00Z' };
    for (const token of [
      await memberToken(t, 'acme-owner', 'acme', 'owner'),
      await t.token('plain-user'),
      await serviceToken(t, { scope: 'billing:seats:read' }),
    ]) {
      const response = await report(t, token, 'acme', body);
      assert.equal(response.statusCode, 403);
      assert.match(response.json().detail, /needs a service token with the scope billing:seats/);
    }
    assert.equal((await orgBilling(t, 'acme-owner', { org: 'acme' })).seats.reported, 2);
    const anonymous = await report(t, null, 'acme', body);
    assert.equal(anonymous.statusCode, 401);
  });

  test('a scope alone is not a backend: a client not listed, or a token of a person or of another kind: 403', async () => {
    const body = { count: 999_999, as_of: '2026-06-01T00:00:00Z' };
    const refused: [string, string, RegExp][] = [
      // An end user whose identity provider granted the API's scope on asking.
      [
        await t.token('mallory', 'mallory@example.com', {
          extra: { scope: 'openid profile email billing:seats', org_id: 'other' },
        }),
        'a user with the scope',
        /client BILLING_SERVICE_CLIENTS lists/,
      ],
      [
        await serviceToken(t, { scope: 'billing:seats', client_id: 'spa' }),
        'another client',
        /client BILLING_SERVICE_CLIENTS lists/,
      ],
      [
        await serviceToken(t, { scope: 'billing:seats', client_id: undefined }),
        'no client',
        /client BILLING_SERVICE_CLIENTS lists/,
      ],
      [
        await serviceToken(t, { scope: 'billing:seats', org_id: 'acme' }),
        'an organisation',
        /carries an organisation/,
      ],
      [
        await serviceToken(t, { scope: 'billing:seats', gty: 'password' }),
        'a password grant',
        /another grant/,
      ],
      [
        await t.token('backend', 'backend@example.com', {
          extra: { scope: 'billing:seats', client_id: DEV_SERVICE_CLIENT },
        }),
        'an e-mail',
        /an e-mail/,
      ],
    ];
    for (const [token, kind, why] of refused) {
      const response = await report(t, token, 'acme', body);
      assert.equal(response.statusCode, 403, kind);
      assert.match(response.json().detail, why, kind);
    }
    for (const other of [{ nonce: 'n-1' }, { events: {} }]) {
      const token = await serviceToken(t, { scope: 'billing:seats', ...other });
      assert.equal((await report(t, token, 'acme', body)).statusCode, 401, Object.keys(other)[0]);
    }
    const azp = await serviceToken(t, {
      scope: 'billing:seats',
      client_id: undefined,
      azp: DEV_SERVICE_CLIENT,
    });
    assert.equal(
      (await report(t, azp, 'acme', { count: 3, as_of: '2026-04-01T00:00:00Z' })).statusCode,
      200,
    );
  });

  test('a bad body or path: 422 in FastAPI shape', async () => {
    const token = await serviceToken(t);
    const bad = await report(t, token, 'acme', { count: -1, as_of: 'yesterday' });
    assert.equal(bad.statusCode, 422);
    assert.deepEqual(
      bad
        .json()
        .detail.map((item: { loc: unknown[] }) => item.loc)
        .sort(),
      [
        ['body', 'as_of'],
        ['body', 'count'],
      ],
    );
    const longName = await report(t, token, 'x'.repeat(256), {
      count: 1,
      as_of: '2026-05-01T00:00:00Z',
    });
    assert.equal(longName.statusCode, 422);
  });
  test('an as_of naming no instant, or the future beyond the clock skew: 422, nothing stored', async () => {
    const token = await serviceToken(t);
    const cases = [
      ['2016-12-31T23:59:60Z', 'datetime_parsing'],
      ['2999-01-01T00:00:00Z', 'datetime_future'],
      [new Date(Date.now() + 6 * 60_000).toISOString(), 'datetime_future'],
    ];
    for (const [asOf, type] of cases) {
      const response = await report(t, token, 'acme', { count: 50, as_of: asOf });
      assert.equal(response.statusCode, 422, response.body);
      const [{ msg, ...item }] = response.json().detail;
      assert.deepEqual(item, { type, loc: ['body', 'as_of'], input: asOf });
      assert.match(msg, /valid datetime|future/);
    }
    assert.equal((await orgBilling(t, 'acme-owner', { org: 'acme' })).seats.reported, 2);
    const skewed = await report(t, token, 'acme', {
      count: 7,
      as_of: new Date(Date.now() + 60_000).toISOString(),
    });
    assert.equal(skewed.statusCode, 200, 'a clock a minute ahead is within the skew');
    assert.equal(skewed.json().reported, 7);
  });
});

describe(`seat reports with BILLING_SEATS=active (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  test('409: the seats follow the members, not reports', async () => {
    const response = await report(t, await serviceToken(t), 'acme', {
      count: 3,
      as_of: '2026-05-01T00:00:00Z',
    });
    assert.equal(response.statusCode, 409);
    assert.match(response.json().detail, /not reported/);
    const rows = await t.composition.db.query('SELECT 1 FROM organizations');
    assert.deepEqual(rows, []);
  });
});
