// Traces an operator can follow, from the real service as `npm start` runs it (scripts/start.mjs:
// build, then dist/otel.mjs, then the service) on the embedded defaults, pointed by the standard
// variables at a collector this test runs (OTLP over HTTP, JSON). A request is a server span with
// its route and the PostgreSQL queries under it; a checkout's trace holds its call to the provider
// (the embedded simulator); a webhook delivery's span names its event and outcome; the outbound
// event that delivery caused goes to the application with a traceparent of the same trace; a seat
// sync is a span of its own, its provider call under it; log lines carry the trace.
// PostgreSQL: TEST_POSTGRES_URL's in the PostgreSQL half, else the embedded one.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { startAppReceiver, type AppReceiver } from '../helpers/app-receiver.ts';
import { freshDataDir } from '../helpers/data-dir.ts';
import { createTestDatabase, onPostgres, type TestDatabase } from '../helpers/database.ts';
import { eventually, startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.ts';
import type { ReceivedSpan } from '../helpers/otlp-receiver.ts';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.ts';

const SERVICE_NAME = 'billing-under-trace';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

describe(`traces over OTLP (${onPostgres ? 'PostgreSQL' : 'embedded PostgreSQL'})`, () => {
  let database: TestDatabase;
  let otlp: OtlpReceiver;
  let app: AppReceiver;
  let service: ServiceProcess;
  let env: Record<string, string>;
  let token: string;
  const dataDir = freshDataDir('billing-traces');
  /** A development token from the built CLI, as `npm run token -- ...args`. */
  const mint = async (...args: string[]) => {
    const options = { env: { ...process.env, ...env } };
    const cli = ['dist/cli.mjs', 'token', ...args];
    return (await promisify(execFile)(process.execPath, cli, options)).stdout.trim();
  };
  const serverSpan = (route: string, also = (_: ReceivedSpan) => true) =>
    otlp.find(
      `the server span of ${route}`,
      (s) => s.kind === 'server' && s.attributes['http.route'] === route && also(s),
    );
  /** A client span under `parent` calling the simulator's API at `path`. */
  const providerCall = (parent: ReceivedSpan, simulator: string, path = '/v1/') =>
    otlp.find(
      `a call to the provider's ${path} under ${parent.name}`,
      (s) =>
        s.kind === 'client' &&
        String(s.attributes['url.full']).startsWith(`${simulator}${path}`) &&
        otlp.under(s, parent),
    );

  before(async () => {
    [database, otlp, app] = await Promise.all([
      createTestDatabase(),
      startOtlpReceiver(),
      startAppReceiver(),
    ]);
    env = {
      NODE_ENV: 'development',
      DATA_DIR: dataDir,
      DATABASE_URL: onPostgres ? database.url : '',
      PAYMENTS_SIMULATOR_PORT: '0',
      APP_WEBHOOK_URL: app.url,
      APP_WEBHOOK_SECRET: app.secret,
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: SERVICE_NAME,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    service = await startServiceProcess(env, { entry: 'scripts/start.mjs' });
    token = await mint('--sub', 'traced-user', '--email', 'traced@example.com');
  });
  after(async () => {
    await service?.stop();
    await Promise.all([otlp?.close(), app?.close(), database?.drop()]);
    await rm(dataDir, { recursive: true, force: true });
  });

  const call = (method: string, path: string, as = token) =>
    fetch(`${service.url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json' },
      ...(method === 'POST' && { body: '{}' }),
    });
  /** Starts a checkout and pays it at the simulator, as its page's Pay does; the simulator's origin. */
  async function checkoutPaid(path: string, as = token): Promise<string> {
    const checkout = await call('POST', path, as);
    assert.equal(checkout.status, 200);
    const { url } = (await checkout.json()) as { url: string };
    const pay = `${new URL(url).origin}/_sim/checkout/sessions/${url.split('/').pop()}/pay`;
    const paid = await fetch(pay, {
      method: 'POST',
      headers: { authorization: 'Bearer sk_test_simulator' },
    });
    assert.equal(paid.status, 200, await paid.text());
    return new URL(url).origin;
  }

  test('GET /users/me: a server span with its route, PostgreSQL under it, the trace in its log line', async () => {
    assert.equal((await call('GET', '/users/me')).status, 200);
    const server = await serverSpan('/api/v1/users/me');
    assert.equal(server.service, SERVICE_NAME, "the resource's service.name is OTEL_SERVICE_NAME");
    const query = await otlp.find(
      'a PostgreSQL span under it',
      (s) => s.attributes['db.system.name'] === 'postgresql' && otlp.under(s, server),
    );
    assert.equal(query.kind, 'client');
    type Line = { msg?: string; url?: string; trace_id?: string; span_id?: string };
    const line = await eventually(
      () =>
        service
          .logged<Line>()
          .find((entry) => entry.msg === 'request completed' && entry.url === '/api/v1/users/me'),
      'the access log line of GET /users/me',
    );
    assert.equal(line.trace_id, server.traceId);
    assert.match(line.span_id ?? '', /^[0-9a-f]{16}$/);
  });

  test("a checkout's trace holds its provider call; the paid checkout's webhook and outbound event continue one trace", async () => {
    const simulator = await checkoutPaid('/billing/checkout');
    await providerCall(await serverSpan('/api/v1/billing/checkout'), simulator);

    const told = await eventually(
      () => app.arrivals.find((arrival) => arrival.payload.type === 'tier.changed'),
      'tier.changed at the application',
    );
    const [, traceId, requestSpanId] = TRACEPARENT.exec(told.headers.traceparent ?? '') ?? [];
    assert.ok(traceId, `a W3C traceparent: ${told.headers.traceparent}`);
    const send = await otlp.find(
      'the span of its delivery',
      (s) => s.kind === 'producer' && s.attributes['messaging.message.id'] === told.id,
    );
    assert.equal(send.traceId, traceId, 'the outbound request continues the trace of its delivery');
    assert.equal(send.name, 'send tier.changed');
    assert.equal(send.attributes['billing.delivery.outcome'], 'delivered');
    const request = await otlp.find(
      'the span the traceparent names',
      (s) => s.spanId === requestSpanId,
    );
    assert.equal(request.parentSpanId, send.spanId, "the traceparent names the delivery's request");

    const delivery = await serverSpan('/api/v1/webhooks/payments', (s) => otlp.under(send, s));
    assert.equal(
      delivery.traceId,
      traceId,
      'the outbound event continues the trace of the webhook that caused it',
    );
    assert.match(String(delivery.attributes['messaging.message.id']), /^evt_/);
    assert.equal(delivery.attributes['messaging.operation.type'], 'process');
    assert.match(
      String(delivery.attributes['billing.event.type']),
      /^(checkout|customer|invoice)\./,
    );
    assert.equal(delivery.attributes['billing.webhook.outcome'], 'processed');
  });

  test("each seat sync is a span of its own, naming the organisation, the provider's call under it", async () => {
    const [admin, member] = await Promise.all([
      mint('--sub', 'traced-admin', '--org', 'traced', '--role', 'admin'),
      mint('--sub', 'traced-member', '--org', 'traced', '--role', 'member'),
    ]);
    const simulator = await checkoutPaid('/orgs/current/billing/checkout', admin);
    assert.equal((await call('GET', '/orgs/current/billing', member)).status, 200); // a new seat

    const pushed = (s: ReceivedSpan) =>
      s.name === 'seat sync' && s.attributes['billing.seats.outcome'] === 'pushed';
    const sync = await otlp.find('the span of a seat sync that pushed a quantity', pushed, 20_000);
    assert.match(String(sync.attributes['billing.organization.id']), /^[0-9a-f-]{36}$/);
    await providerCall(sync, simulator, '/v1/subscriptions/');
  });
});
