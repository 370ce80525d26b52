// 422 bodies exactly as FastAPI/Pydantic v2 shapes them, so clients written for that shape work
// unchanged. A probe route with the checkout request's schema runs on createFastify, which carries
// the production parsers, ajv options and error handler; the formatter is also tested on its own.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, FastifySchemaValidationError } from 'fastify';
import { createFastify } from '../../src/http/fastify.ts';
import { CheckoutRequestSchema } from '../../src/http/schemas.ts';
import { jsonDecodeError, toValidationErrors } from '../../src/http/validation-errors.ts';
import { createLogger } from '../../src/logger.ts';

const STRING_TYPE = { type: 'string_type', msg: 'Input should be a valid string' };
const NOT_AN_OBJECT = {
  type: 'model_attributes_type',
  loc: ['body'],
  msg: 'Input should be a valid dictionary or object to extract attributes from',
};

describe('422 bodies from the HTTP layer', () => {
  let app: FastifyInstance;
  before(async () => {
    app = createFastify({ logger: createLogger('silent') });
    app.post('/probe', { schema: { body: CheckoutRequestSchema } }, async (request) => ({
      received: request.body,
    }));
    await app.ready();
  });
  after(() => app.close());

  const post = (payload?: string, contentType = 'application/json') =>
    app.inject({
      method: 'POST',
      url: '/probe',
      payload,
      headers: payload === undefined ? {} : { 'content-type': contentType },
    });

  async function detail(payload?: string): Promise<unknown[]> {
    const response = await post(payload);
    assert.equal(response.statusCode, 422, response.body);
    return response.json().detail;
  }

  test('no body at all, or an empty JSON body, is a missing body', async () => {
    const missing = {
      detail: [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }],
    };
    for (const payload of [undefined, '', '  \n']) {
      const response = await post(payload);
      assert.equal(response.statusCode, 422);
      assert.deepEqual(response.json(), missing);
    }
  });

  test('a body that is not JSON is json_invalid at the offending character, as Python reports it', async () => {
    for (const [payload, position] of [
      ['{"success_url": x}', 16],
      ['{"success_url": "a"] ', 19],
      ['{"success_url":', 15],
      ['{success_url: 1}', 1],
      ['{"success_url": "a"}}', 20],
      ['xyz', 0],
    ] as const) {
      const [item, ...rest] = (await detail(payload)) as Record<string, unknown>[];
      assert.deepEqual(rest, []);
      const { ctx, ...fixed } = item!;
      assert.deepEqual(
        fixed,
        { type: 'json_invalid', loc: ['body', position], msg: 'JSON decode error', input: {} },
        payload,
      );
      assert.equal(typeof (ctx as { error: unknown }).error, 'string');
      assert.doesNotMatch(
        (ctx as { error: string }).error,
        /success_url/,
        'the reason does not echo the body',
      );
    }
  });

  test('a JSON array, string, number or null is not an object', async () => {
    assert.deepEqual(await detail('[]'), [{ ...NOT_AN_OBJECT, input: [] }]);
    assert.deepEqual(await detail('"https://app.example.com"'), [
      { ...NOT_AN_OBJECT, input: 'https://app.example.com' },
    ]);
    assert.deepEqual(await detail('5'), [{ ...NOT_AN_OBJECT, input: 5 }]);
    assert.deepEqual(await detail('null'), [
      { type: 'missing', loc: ['body'], msg: 'Field required', input: null },
    ]);
  });

  test('a field of the wrong type is string_type at its location, not coerced', async () => {
    assert.deepEqual(await post('{"success_url":5}').then((r) => r.json()), {
      detail: [{ ...STRING_TYPE, loc: ['body', 'success_url'], input: 5 }],
    });
  });

  test('every wrong field is reported', async () => {
    assert.deepEqual(await detail('{"success_url":5,"cancel_url":false}'), [
      { ...STRING_TYPE, loc: ['body', 'success_url'], input: 5 },
      { ...STRING_TYPE, loc: ['body', 'cancel_url'], input: false },
    ]);
  });

  test('unknown fields are accepted and left as sent', async () => {
    const response = await post(
      '{"success_url":"https://app.example.com/ok","price":"price_free","tier":"team"}',
    );
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json().received, {
      success_url: 'https://app.example.com/ok',
      price: 'price_free',
      tier: 'team',
    });
  });
});

describe('the 422 formatter on its own', () => {
  const error = (
    keyword: string,
    instancePath: string,
    params: Record<string, unknown>,
  ): FastifySchemaValidationError => ({
    keyword,
    instancePath,
    schemaPath: `#${instancePath}/${keyword}`,
    params,
    message: `failed ${keyword}`,
  });

  test('a missing field is located under its parent and shows the parent as input', () => {
    const body = { cancel_url: 'https://app.example.com' };
    assert.deepEqual(
      toValidationErrors([error('required', '', { missingProperty: 'success_url' })], 'body', body),
      [{ type: 'missing', loc: ['body', 'success_url'], msg: 'Field required', input: body }],
    );
  });

  test('a list index is a number in loc, as Pydantic gives it; escaped keys are unescaped', () => {
    const body = { urls: ['https://a.example', 7], 'a/b': { '~x': 1 } };
    assert.deepEqual(
      toValidationErrors(
        [
          error('type', '/urls/1', { type: 'string' }),
          error('type', '/a~1b/~0x', { type: 'string' }),
        ],
        'body',
        body,
      ),
      [
        { ...STRING_TYPE, loc: ['body', 'urls', 1], input: 7 },
        { ...STRING_TYPE, loc: ['body', 'a/b', '~x'], input: 1 },
      ],
    );
  });

  test('length limits carry their bound in ctx', () => {
    assert.deepEqual(
      toValidationErrors([error('maxLength', '/success_url', { limit: 3 })], 'body', {
        success_url: 'abcd',
      }),
      [
        {
          type: 'string_too_long',
          loc: ['body', 'success_url'],
          msg: 'String should have at most 3 characters',
          input: 'abcd',
          ctx: { max_length: 3 },
        },
      ],
    );
  });

  test('Fastify request parts are named as FastAPI names them', () => {
    const [query] = toValidationErrors(
      [error('type', '/limit', { type: 'integer' })],
      'querystring',
      { limit: 'x' },
    );
    assert.deepEqual(query, {
      type: 'int_type',
      loc: ['query', 'limit'],
      msg: 'Input should be a valid integer',
      input: 'x',
    });
    const [path] = toValidationErrors([error('type', '/id', { type: 'integer' })], 'params', {
      id: 'x',
    });
    assert.deepEqual(path!.loc, ['path', 'id']);
  });

  test("jsonDecodeError is FastAPI's json_invalid item", () => {
    assert.deepEqual(jsonDecodeError(7, 'Unexpected token'), {
      type: 'json_invalid',
      loc: ['body', 7],
      msg: 'JSON decode error',
      input: {},
      ctx: { error: 'Unexpected token' },
    });
  });
});
