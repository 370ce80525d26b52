// /openapi.json names the interface document's schemas and describes the four operations;
// /docs serves a page; /healthz and /readyz answer.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.ts';

describe('OpenAPI document, docs and health', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  test('the document lists the named schemas and the four operations', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(response.statusCode, 200);
    const document = response.json();
    for (const name of [
      'User',
      'CheckoutRequest',
      'CheckoutResponse',
      'PortalRequest',
      'PortalResponse',
      'HTTPValidationError',
      'ValidationError',
    ]) {
      assert.ok(document.components.schemas[name], `schema ${name}`);
    }
    assert.ok(document.paths['/api/v1/users/me'].get);
    assert.ok(document.paths['/api/v1/billing/checkout'].post);
    assert.ok(document.paths['/api/v1/webhooks/payments'].post);
    const summary = document.paths['/api/v1/billing/subscription'].get;
    assert.equal(summary.operationId, 'getBillingSubscription');
    assert.deepEqual(summary.security, [{ bearerAuth: [] }]);
    assert.equal(
      summary.responses['200'].content['application/json'].schema.$ref,
      '#/components/schemas/BillingSubscription',
    );
    for (const status of ['401', '500', '503'])
      assert.ok(summary.responses[status], `summary ${status}`);
    const portal = document.paths['/api/v1/billing/portal'].post;
    assert.equal(portal.operationId, 'createPortalSession');
    assert.deepEqual(portal.security, [{ bearerAuth: [] }]);
    assert.equal(
      portal.requestBody.content['application/json'].schema.$ref,
      '#/components/schemas/PortalRequest',
    );
    assert.equal(
      portal.responses['200'].content['application/json'].schema.$ref,
      '#/components/schemas/PortalResponse',
    );
    for (const status of ['401', '409', '422', '429', '502'])
      assert.ok(portal.responses[status], `portal ${status}`);
    assert.equal(
      document.paths['/api/v1/users/me'].get.responses['200'].content['application/json'].schema
        .$ref,
      '#/components/schemas/User',
    );
    assert.deepEqual(
      Object.keys(
        document.paths['/api/v1/billing/checkout'].post.requestBody.content['application/json']
          .schema,
      ),
      ['$ref'],
    );
  });

  test('every response of the three operations says what it means, with the headers clients rely on', async () => {
    const { paths } = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operations = [
      paths['/api/v1/users/me'].get,
      paths['/api/v1/billing/checkout'].post,
      paths['/api/v1/webhooks/payments'].post,
      paths['/api/v1/billing/subscription'].get,
    ];
    for (const operation of operations) {
      for (const [status, response] of Object.entries(operation.responses) as [
        string,
        { description: string },
      ][]) {
        assert.ok(
          response.description && response.description !== 'Default Response',
          `${operation.operationId} ${status}`,
        );
      }
    }
    const checkout = paths['/api/v1/billing/checkout'].post.responses;
    assert.ok(checkout['401'].headers['WWW-Authenticate']);
    assert.ok(paths['/api/v1/users/me'].get.responses['401'].headers['WWW-Authenticate']);
    assert.ok(checkout['429'].headers['Retry-After']);
    assert.ok(checkout['503'].headers['Retry-After']);
    const webhook = paths['/api/v1/webhooks/payments'].post;
    // Either payload style: a snapshot event or a thin one, each with its `created`.
    const styles = webhook.requestBody.content['application/json'].schema.anyOf;
    assert.deepEqual(
      styles.map((style: { properties: { object: { const?: string; enum?: string[] } } }) =>
        String(style.properties.object.const ?? style.properties.object.enum),
      ),
      ['event', 'v2.core.event'],
    );
    assert.ok(styles.every((style: { properties: object }) => 'created' in style.properties));
    assert.ok(
      webhook.parameters.some(
        (p: { in: string; name: string; required: boolean }) =>
          p.in === 'header' && p.name === 'stripe-signature' && p.required,
      ),
    );
  });

  test("what Redocly's recommended rules ask: servers, a licence, every operation's security (the webhook's is its signature header)", async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    assert.deepEqual(
      document.servers.map((server: { url: string }) => server.url),
      ['/'],
    );
    assert.ok(document.info.license.name);
    for (const [path, item] of Object.entries(document.paths) as [
      string,
      Record<string, { security?: unknown[] }>,
    ][])
      for (const [method, operation] of Object.entries(item))
        assert.ok(Array.isArray(operation.security), `${method} ${path} declares its security`);
    const webhook = document.paths['/api/v1/webhooks/payments'].post;
    assert.deepEqual(webhook.security, []);
    const signature = webhook.parameters.find(
      (p: { in: string; name: string }) => p.in === 'header' && p.name === 'stripe-signature',
    );
    assert.match(signature.schema.description ?? signature.description, /HMAC-SHA256/);
  });

  test('/docs serves an HTML page', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/docs' });
    const page =
      response.statusCode === 302
        ? await t.app.inject({ method: 'GET', url: response.headers.location as string })
        : response;
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
  });

  test('/healthz and /readyz answer 200 while the database answers', async () => {
    assert.deepEqual((await t.app.inject({ method: 'GET', url: '/healthz' })).json(), {
      status: 'ok',
    });
    assert.deepEqual((await t.app.inject({ method: 'GET', url: '/readyz' })).json(), {
      status: 'ready',
    });
  });

  test('an unknown path is a 404 with a detail', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/nothing' });
    assert.equal(response.statusCode, 404);
    assert.deepEqual(response.json(), { detail: 'Not Found' });
  });
});
