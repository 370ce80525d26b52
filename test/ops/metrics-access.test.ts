// /metrics (the Node version, business counters) is not open to anyone on the API port: with the
// API on every interface it is off there unless METRICS_TOKEN guards it, and METRICS_PORT serves it
// on a listener of its own, on loopback unless METRICS_HOST says otherwise.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { describe, test, type TestContext } from 'node:test';
import { buildTestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { freePort } from '../../support/free-port.ts';
import { startServiceProcess } from '../helpers/service-process.ts';
import { freshDataDir } from '../helpers/data-dir.ts';

const TOKEN = 'metrics-scraper-token-0123456789';

async function metricsOf(context: TestContext, env: Record<string, string>, authorization?: string) {
  const t = await buildTestApp(env);
  context.after(() => t.close());
  return t.app.inject({ method: 'GET', url: '/metrics', headers: authorization === undefined ? {} : { authorization } });
}

describe(`who may read /metrics (${databaseLabel})`, () => {
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

  test('METRICS_PORT: served on its own loopback listener, not on the API port', async (context) => {
    const dataDir = freshDataDir('billing-metrics');
    const port = await freePort();
    const service = await startServiceProcess({ NODE_ENV: 'test', DATABASE_URL: 'memory://', DATA_DIR: dataDir, PAYMENTS_SIMULATOR_PORT: '0', METRICS_PORT: String(port) });
    context.after(async () => {
      await service.stop();
      await rm(dataDir, { recursive: true, force: true });
    });
    assert.equal((await fetch(`${service.url}/metrics`)).status, 404);
    const scraped = await fetch(`http://127.0.0.1:${port}/metrics`);
    assert.equal(scraped.status, 200);
    assert.match(await scraped.text(), /^http_request_duration_seconds_count\{route="\/metrics"|^process_resident_memory_bytes \d+/m);
  });
});
