// Promise: whatever a client sends to the authenticated endpoints (any body, any Authorization
// value, any other headers) is answered without a 5xx, in a status and shape the contract and
// /openapi.json document (buildTestApp's inject checks every answer against the document), and a
// rejected request stores nothing: no user for its subject, no checkout session, no provider call.
// Property-based (fast-check): a failure prints the shrunk counterexample and the seed to replay it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';
import {
  anyJson,
  anyText,
  extraHeaders,
  headerValue,
  RUNS,
  urlLike,
} from '../helpers/arbitraries.ts';
import { INVALID_TOKEN_CHALLENGE } from '../helpers/challenge.ts';

const ORIGIN = 'https://app.example.test';
const CHECKOUT = '/api/v1/billing/checkout';
const JSON_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'Application/JSON',
  'application/json;charset=UTF-8',
];

describe(`hostile input to the authenticated endpoints (${databaseLabel})`, () => {
  let t: TestApp;
  let genuine: string;
  let subjects = 0;
  before(async () => {
    // The per-user checkout limit is not under test here; the genuine token is used many times.
    t = await buildTestApp({ APP_URL: ORIGIN, BILLING_CHECKOUT_RATE_LIMIT: '10000' });
    genuine = await t.token('header-fuzz-genuine');
  });
  after(() => t.close());

  const freshSubject = () => `fuzz-${databaseLabel}-${++subjects}`;
  const count = async (sql: string, params: string[] = []) =>
    (await t.composition.db.query<{ n: number }>(sql, params))[0]!.n;
  const usersWith = (sub: string) =>
    count('SELECT count(*)::int AS n FROM users WHERE idp_id = $1', [sub]);
  const sessions = () => count('SELECT count(*)::int AS n FROM checkout_sessions');
  const otherUsers = () =>
    count(
      "SELECT count(*)::int AS n FROM users WHERE idp_id NOT LIKE 'fuzz-%' AND idp_id <> 'header-fuzz-genuine'",
    );

  /** The provider's view of an accepted checkout: its return URLs must stay on the allowed origin. */
  async function assertSessionStaysHome(response: LightMyRequestResponse) {
    const { url } = response.json() as { url: string };
    const session = await simulatorClient(t).checkout.sessions.retrieve(url.split('/').pop()!);
    assert.equal(new URL(session.success_url!).origin, ORIGIN, session.success_url!);
    assert.equal(new URL(session.cancel_url!).origin, ORIGIN, session.cancel_url!);
  }

  function assertValidationShape(response: LightMyRequestResponse) {
    const { detail } = response.json() as {
      detail: { loc: unknown[]; type: string; msg: string }[];
    };
    assert.ok(Array.isArray(detail) && detail.length > 0, response.body);
    for (const item of detail) {
      assert.equal(item.loc[0], 'body', response.body);
      assert.equal(typeof item.type, 'string');
      assert.equal(typeof item.msg, 'string');
    }
  }

  const checkoutBody = fc.oneof(
    anyJson.map((value) => JSON.stringify(value)),
    fc
      .tuple(
        fc.record(
          {
            success_url: fc.oneof(urlLike(ORIGIN), anyJson),
            cancel_url: fc.oneof(urlLike(ORIGIN), anyJson),
          },
          { requiredKeys: [] },
        ),
        fc.dictionary(
          fc.constantFrom(
            'price',
            'price_id',
            'tier',
            'plan',
            '__proto__',
            'constructor',
            'customer',
            'line_items',
          ),
          anyJson,
          { maxKeys: 3 },
        ),
      )
      .map(([fields, extra]) => JSON.stringify({ ...extra, ...fields })),
    anyText,
    fc.constantFrom(
      '',
      ' ',
      '{',
      '[',
      'null',
      '{"success_url":',
      '{"a":1}{"b":2}',
      '\ufeff{}',
      '{"__proto__":{"success_url":"https://evil.example/"}}',
      `${'['.repeat(300)}${']'.repeat(300)}`,
    ),
  );

  test('any checkout body: never a 5xx, a documented status and shape, and nothing stored when it is refused', async () => {
    await fc.assert(
      fc.asyncProperty(
        checkoutBody,
        fc.constantFrom(...JSON_TYPES),
        async (payload, contentType) => {
          const sub = freshSubject();
          const sessionsBefore = await sessions();
          const response = await t.app.inject({
            method: 'POST',
            url: CHECKOUT,
            headers: { authorization: `Bearer ${await t.token(sub)}`, 'content-type': contentType },
            payload,
          });
          assert.ok(
            [200, 422].includes(response.statusCode),
            `${response.statusCode} ${response.body.slice(0, 300)}`,
          );
          if (response.statusCode === 200) return assertSessionStaysHome(response);
          assertValidationShape(response);
          assert.equal(await usersWith(sub), 0, 'no user for a refused request');
          assert.equal(await sessions(), sessionsBefore, 'no session for a refused request');
        },
      ),
      { numRuns: RUNS },
    );
  });

  /** Ways to mangle the genuine bearer token: flips, cuts, junk, scheme spelling, whitespace. */
  const authorization = fc.oneof(
    headerValue,
    headerValue.map((value) => `Bearer ${value}`),
    fc.constantFrom(
      'Bearer',
      'Bearer ',
      'bearer',
      'Basic YWxpY2U6c2VjcmV0',
      'Bearer a.b',
      'Bearer a.b.c.d',
      'Bearer ..',
      'Bearer eyJhbGciOiJub25lIn0.e30.',
    ),
    fc
      .record({ at: fc.nat(), char: fc.constantFrom('A', '-', '_', '.', '=', ' ', '+', '/') })
      .map(({ at, char }) => {
        const i = at % genuine.length;
        return `Bearer ${genuine.slice(0, i)}${char}${genuine.slice(i + 1)}`;
      }),
    fc.nat().map((at) => `Bearer ${genuine.slice(0, at % genuine.length)}`),
    fc
      .tuple(
        fc.constantFrom('Bearer ', 'bearer ', 'BEARER ', 'Bearer  ', ' Bearer ', 'Bearer\t'),
        fc.constantFrom('', ' ', '  ', 'x', '.x', '=='),
      )
      .map(([scheme, suffix]) => `${scheme}${genuine}${suffix}`),
  );
  const headers = fc.record(
    {
      authorization,
      'x-request-id': headerValue,
      accept: headerValue,
      'accept-language': headerValue,
      cookie: headerValue,
    },
    { requiredKeys: [] },
  );

  /** 200 only as the genuine subject; otherwise exactly one of the contract's two 401 answers. */
  function assertAuthOutcome(response: LightMyRequestResponse, allowed: number[]) {
    const { statusCode } = response;
    assert.ok(
      [200, 401, ...allowed].includes(statusCode),
      `${statusCode} ${response.body.slice(0, 300)}`,
    );
    if (statusCode !== 401) return;
    const body = response.json();
    if (body.detail === 'Not authenticated')
      assert.equal(response.headers['www-authenticate'], 'Bearer');
    else {
      assert.deepEqual(body, { detail: 'Invalid token' });
      assert.match(String(response.headers['www-authenticate']), INVALID_TOKEN_CHALLENGE);
    }
  }

  test('any Authorization and other headers on GET /users/me: 200 only for the genuine token, else the contract 401, nobody else created', async () => {
    await fc.assert(
      fc.asyncProperty(headers, extraHeaders, async (main, extra) => {
        const response = await t.app.inject({
          method: 'GET',
          url: '/api/v1/users/me',
          headers: { ...extra, ...main },
        });
        assertAuthOutcome(response, []);
        if (response.statusCode === 200)
          assert.equal(response.json().idp_id, 'header-fuzz-genuine');
        assert.equal(await otherUsers(), 0);
      }),
      { numRuns: RUNS },
    );
  });

  test('any Authorization and other headers on POST /billing/checkout: never a 5xx, the contract 401 before anything is stored', async () => {
    await fc.assert(
      fc.asyncProperty(
        headers,
        extraHeaders,
        fc.constantFrom(...JSON_TYPES),
        async (main, extra, contentType) => {
          const sessionsBefore = await sessions();
          const response = await t.app.inject({
            method: 'POST',
            url: CHECKOUT,
            headers: { ...extra, ...main, 'content-type': contentType },
            payload: '{}',
          });
          assertAuthOutcome(response, []);
          if (response.statusCode === 401) assert.equal(await sessions(), sessionsBefore);
          assert.equal(await otherUsers(), 0);
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('a body over the 64 KiB limit is refused with a documented 413 {"detail"}, and nothing is stored', async () => {
    const sub = freshSubject();
    const payload = JSON.stringify({ success_url: `${ORIGIN}/${'a'.repeat(70 * 1024)}` });
    const response = await t.app.inject({
      method: 'POST',
      url: CHECKOUT,
      headers: {
        authorization: `Bearer ${await t.token(sub)}`,
        'content-type': 'application/json',
      },
      payload,
    });
    assert.equal(response.statusCode, 413);
    assert.equal(typeof response.json().detail, 'string');
    assert.equal(await usersWith(sub), 0);
  });

  test('a body in a media type the endpoint does not take is refused with a documented status, and nothing is stored', async () => {
    for (const contentType of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
      'application/jsonx',
      'text/json',
    ]) {
      const sub = freshSubject();
      const response = await t.app.inject({
        method: 'POST',
        url: CHECKOUT,
        headers: { authorization: `Bearer ${await t.token(sub)}`, 'content-type': contentType },
        payload: '{}',
      });
      assert.ok(
        response.statusCode >= 400 && response.statusCode < 500,
        `${contentType}: ${response.statusCode}`,
      );
      assert.equal(await usersWith(sub), 0, contentType);
    }
  });
});
