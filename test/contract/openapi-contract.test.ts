// The checker buildTestApp puts on app.inject: it accepts the responses the document describes and
// refuses, naming operation and status, a status it does not list or a body its schema rejects.
// Fed made-up responses here, so it is tested without breaking a route.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify, { type LightMyRequestResponse } from 'fastify';
import { registerOpenApi } from '../../src/http/openapi.ts';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import {
  checkInjectedResponses,
  OpenApiContract,
  type OpenApiDocument,
} from '../helpers/openapi-contract.ts';

const made = (statusCode: number, body: unknown, contentType = 'application/json; charset=utf-8') =>
  ({
    statusCode,
    headers: { 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  }) as unknown as LightMyRequestResponse;

const PROFILE = {
  id: '8da1c2d4-5e6f-4a1b-8c9d-0e1f2a3b4c5d',
  idp_id: 'alice',
  email: 'alice@example.com',
  tier: 'free',
  created_at: '2026-01-01T00:00:00.000+00:00',
};

describe(`OpenAPI contract checker (${databaseLabel})`, () => {
  let t: TestApp;
  let contract: OpenApiContract;
  before(async () => {
    t = await buildTestApp();
    contract = new OpenApiContract(
      (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as OpenApiDocument,
    );
  });
  after(() => t.close());

  test('real responses pass through app.inject', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/users/me',
      headers: bearer(await t.token('contract-amy')),
    });
    assert.equal(response.statusCode, 200);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/users/me?x=1' })).statusCode,
      401,
    );
  });

  test('a documented status with a valid body passes', () => {
    contract.check('GET', '/api/v1/users/me', made(200, PROFILE));
    contract.check(
      'GET',
      '/api/v1/users/me?with=query',
      made(401, { detail: 'Not authenticated' }),
    );
    contract.check('POST', '/api/v1/webhooks/payments', made(200, { status: 'processed' }));
  });

  test('a request outside the document is not checked', () => {
    contract.check('GET', '/healthz', made(418, 'teapot', 'text/plain'));
    contract.check('DELETE', '/api/v1/users/me', made(404, { detail: 'Not Found' }));
  });

  test('an undocumented status fails, naming the operation and the status', () => {
    assert.throws(
      () => contract.check('GET', '/api/v1/users/me', made(418, { detail: 'teapot' })),
      /getCurrentUser \(GET \/api\/v1\/users\/me\) answered 418, which the document does not list/,
    );
  });

  test('a body the schema rejects fails with ajv errors', () => {
    assert.throws(
      () => contract.check('GET', '/api/v1/users/me', made(200, { ...PROFILE, id: 'not-a-uuid' })),
      /getCurrentUser .* answered 200 with a body its schema rejects: \/id must match format "uuid"/,
    );
    assert.throws(
      () => contract.check('GET', '/api/v1/users/me', made(200, { ...PROFILE, plan: 'team' })),
      /must NOT have additional properties/,
    );
    assert.throws(
      () =>
        contract.check(
          'POST',
          '/api/v1/billing/checkout',
          made(422, { detail: [{ loc: ['body'], msg: 'Field required' }] }),
        ),
      /createCheckoutSession .* 422 .*\/detail\/0 must have required property 'type'/,
    );
  });

  test('a body that is not of the documented media type fails', () => {
    assert.throws(
      () => contract.check('GET', '/api/v1/users/me', made(200, '<html></html>', 'text/html')),
      /content-type "text\/html"/,
    );
  });

  test('through app.inject, a drifting route makes the request itself fail', async () => {
    const app = Fastify();
    await registerOpenApi(app);
    const Item = {
      type: 'object',
      properties: { id: { type: 'string', format: 'uuid' } },
      required: ['id'],
    };
    app.get<{ Querystring: { answer?: string } }>(
      '/items',
      { schema: { operationId: 'listItems', response: { 200: Item } } },
      async (request, reply) => {
        if (request.query.answer === 'teapot') return reply.status(418).send({ detail: 'teapot' });
        return { id: request.query.answer === 'bad' ? 'not-a-uuid' : PROFILE.id };
      },
    );
    await checkInjectedResponses(app);
    try {
      assert.equal((await app.inject({ method: 'GET', url: '/items' })).statusCode, 200);
      await assert.rejects(
        app.inject({ method: 'GET', url: '/items?answer=teapot' }),
        /listItems \(GET \/items\) answered 418/,
      );
      await assert.rejects(
        app.inject({ method: 'GET', url: '/items?answer=bad' }),
        /listItems .* \/id must match format "uuid"/,
      );
      const viaCallback = await new Promise<Error | undefined>((resolve) =>
        app.inject({ method: 'GET', url: '/items?answer=teapot' }, (error) =>
          resolve(error ?? undefined),
        ),
      );
      assert.match(String(viaCallback), /answered 418/);
    } finally {
      await app.close();
    }
  });
});
