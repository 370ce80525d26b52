// /metrics (the Node version, business counters) is not open to anyone on the API port: with the
// API on every interface, or in production, it is off there unless METRICS_TOKEN guards it;
// without a token it answers only names of this machine (not a rebound name); METRICS_PORT serves
// it on a listener of its own, on loopback unless METRICS_HOST says otherwise, with the API's
// deadlines and no request body waited for.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { describe, test, type TestContext } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { buildTestApp } from '../helpers/app.ts';
import { databaseLabel, onceInTheSuite } from '../helpers/database.ts';
import { freePort } from '../../support/free-port.ts';
import { startServiceProcess } from '../helpers/service-process.ts';
import { freshDataDir } from '../helpers/data-dir.ts';

const TOKEN = 'metrics-scraper-token-0123456789';

async function metricsOf(
  context: TestContext,
  env: Record<string, string>,
  authorization?: string,
) {
  const t = await buildTestApp(env);
  context.after(() => t.close());
  return t.app.inject({
    method: 'GET',
    url: '/metrics',
    headers: authorization === undefined ? {} : { authorization },
  });
}

describe(`who may read /metrics (${databaseLabel})`, onceInTheSuite, () => {
  test('API on every interface, nothing configured: /metrics is not served there', async (context) => {
    assert.equal((await metricsOf(context, { HOST: '0.0.0.0' })).statusCode, 404);
  });

  test('METRICS_TOKEN: 401 without it or with another, 200 with it', async (context) => {
    const env = { HOST: '0.0.0.0', METRICS_TOKEN: TOKEN };
    const refused = await metricsOf(context, env);
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.headers['www-authenticate'], 'Bearer');
    assert.equal((await metricsOf(context, env, `Bearer ${TOKEN}x`)).statusCode, 401);
    const allowed = await metricsOf(context, env, `Bearer ${TOKEN}`);
    assert.equal(allowed.statusCode, 200);
    assert.match(allowed.body, /^process_resident_memory_bytes \d+/m);
  });

  test('production with the API on loopback (behind a reverse proxy on the same host): not served without a token or a port', async (context) => {
    const production = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://u:p@127.0.0.1:9/db',
      IDP_ISSUER: 'https://idp.example.com/',
      IDP_AUDIENCE: 'api',
      PAYMENTS_API_KEY: 'sk_test_x',
      PAYMENTS_WEBHOOK_SECRET: 'whsec_x',
      BILLING_PRICES: 'pro=price_1',
    };
    const config = loadConfig(production);
    assert.deepEqual(
      [config.metrics.apiPort, config.metrics.off],
      [false, 'NODE_ENV=production needs METRICS_TOKEN or METRICS_PORT'],
    );
    assert.equal(loadConfig({ ...production, METRICS_TOKEN: TOKEN }).metrics.apiPort, true);
    void context;
  });

  test('without a token on loopback, /metrics answers only names of this machine (421 to a rebound name)', async (context) => {
    assert.equal((await metricsOf(context, {})).statusCode, 200);
    const t = await buildTestApp();
    context.after(() => t.close());
    const rebound = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { host: 'attacker.example:8000' },
    });
    assert.equal(rebound.statusCode, 421);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/metrics', headers: { host: 'localhost:8000' } }))
        .statusCode,
      200,
    );
  });

  test("METRICS_PORT: the API's deadlines, no body waited for, the token checked before any", async (context) => {
    const dataDir = freshDataDir('billing-metrics');
    const port = await freePort();
    const env = {
      NODE_ENV: 'test',
      DATABASE_URL: 'memory://',
      DATA_DIR: dataDir,
      PAYMENTS_SIMULATOR_PORT: '0',
      METRICS_PORT: String(port),
      METRICS_TOKEN: TOKEN,
      HTTP_REQUEST_TIMEOUT_MS: '2000',
    };
    const service = await startServiceProcess(env);
    context.after(async () => {
      await service.stop();
      await rm(dataDir, { recursive: true, force: true });
    });
    const send = (text: string, to = port) => {
      const socket = connect(to, '127.0.0.1');
      let answer = '';
      socket
        .setEncoding('utf8')
        .on('data', (chunk: string) => (answer += chunk))
        .on('error', () => {});
      socket.write(text);
      return { socket, closed: once(socket, 'close').then(() => answer) };
    };
    const started = Date.now();
    const stalled = Array.from({ length: 200 }, () =>
      send(
        `GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nX-Slow: `,
      ),
    );
    context.after(() => stalled.forEach(({ socket }) => socket.destroy()));
    const answers = await Promise.all(stalled.map(({ closed }) => closed));
    assert.ok(
      Date.now() - started < 2_000 + 3_000,
      `all 200 closed ${Date.now() - started} ms after they stalled`,
    );
    assert.ok(
      answers.every((answer) => answer.startsWith('HTTP/1.1 408 ')),
      answers.find((answer) => !answer.startsWith('HTTP/1.1 408 ')),
    );

    const withBody = send(
      `POST /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n{`,
    );
    assert.match(
      await withBody.closed,
      /^HTTP\/1\.1 413 /,
      'a body is refused at once, not waited for',
    );
    assert.ok(Date.now() - started < 8_000);
  });

  test('METRICS_TOKEN on the API port: a request without it is refused when its headers arrive, before its announced body', async (context) => {
    const dataDir = freshDataDir('billing-metrics');
    const service = await startServiceProcess({
      NODE_ENV: 'test',
      DATABASE_URL: 'memory://',
      DATA_DIR: dataDir,
      PAYMENTS_SIMULATOR_PORT: '0',
      METRICS_TOKEN: TOKEN,
    });
    context.after(async () => {
      await service.stop();
      await rm(dataDir, { recursive: true, force: true });
    });
    const socket = connect(Number(new URL(service.url).port), '127.0.0.1');
    let answer = '';
    socket
      .setEncoding('utf8')
      .on('data', (chunk: string) => (answer += chunk))
      .on('error', () => {});
    context.after(() => socket.destroy());
    const sentAt = Date.now();
    socket.write('GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n{');
    for (let waited = 0; !answer.includes('\r\n\r\n') && waited < 5_000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.match(answer, /^HTTP\/1\.1 401 /);
    assert.ok(Date.now() - sentAt < 1_000, `answered ${Date.now() - sentAt} ms after its headers`);
  });

  test('METRICS_PORT: served on its own loopback listener, not on the API port', async (context) => {
    const dataDir = freshDataDir('billing-metrics');
    const port = await freePort();
    const service = await startServiceProcess({
      NODE_ENV: 'test',
      DATABASE_URL: 'memory://',
      DATA_DIR: dataDir,
      PAYMENTS_SIMULATOR_PORT: '0',
      METRICS_PORT: String(port),
    });
    context.after(async () => {
      await service.stop();
      await rm(dataDir, { recursive: true, force: true });
    });
    assert.equal((await fetch(`${service.url}/metrics`)).status, 404);
    const scraped = await fetch(`http://127.0.0.1:${port}/metrics`);
    assert.equal(scraped.status, 200);
    assert.match(
      await scraped.text(),
      /^http_request_duration_seconds_count\{route="\/metrics"|^process_resident_memory_bytes \d+/m,
    );
  });
});
