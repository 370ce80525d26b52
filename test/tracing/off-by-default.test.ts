// Tracing is off until an OTLP endpoint is configured: the service started as the container starts
// it (`node --import ./dist/otel.mjs dist/server.mjs`) with no OTEL_* variable loads no SDK,
// exporter or instrumentation (the packages in its module cache, written at its exit by
// test/helpers/loaded-modules.mjs), registers nothing with OpenTelemetry's API, and sends nothing
// to the default endpoint, localhost:4318, where this test listens when the port is free. The same
// probe, with an endpoint set, does see the SDK: it is not blind.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { freshDataDir } from '../helpers/data-dir.ts';
import { createTestDatabase, onPostgres, type TestDatabase } from '../helpers/database.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.ts';
import { startServiceProcess } from '../helpers/service-process.ts';

interface Loaded {
  packages: string[];
  registered: string[];
}

const PROBE = ['--import', './dist/otel.mjs', '--import', './test/helpers/loaded-modules.mjs'];
/** What tracing would load: the SDK and its parts, the instrumentations, the loader hook. */
const TRACING =
  /^@opentelemetry\/(sdk-|exporter-|instrumentation|context-)|^@fastify\/otel$|^import-in-the-middle$/;
/** Every variable that would turn it on, emptied whatever the environment of the test says. */
const NO_OTEL = { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' };

describe(`tracing off by default (${onPostgres ? 'PostgreSQL' : 'embedded PostgreSQL'})`, () => {
  let database: TestDatabase;
  const dataDir = freshDataDir('billing-untraced');
  const probeFile = `${dataDir}-loaded.json`;
  const loaded = async () => JSON.parse(await readFile(probeFile, 'utf8')) as Loaded;
  before(async () => {
    const built = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
    assert.equal(built.status, 0, `scripts/build.mjs failed: ${built.stderr}`);
    database = await createTestDatabase();
  });
  after(async () => {
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(probeFile, { force: true });
  });

  test('the probe sees the SDK when an endpoint is set', async () => {
    const env = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' };
    await promisify(execFile)(process.execPath, [...PROBE, '-e', ''], {
      env: { ...env, LOADED_MODULES_FILE: probeFile },
    });
    const { packages, registered } = await loaded();
    assert.ok(packages.includes('@opentelemetry/sdk-node'), packages.join(', '));
    assert.ok(packages.includes('@fastify/otel'), packages.join(', '));
    assert.ok(registered.includes('trace'), registered.join(', '));
  });

  test('with no OTEL_* variable: no SDK, exporter or instrumentation loaded, nothing sent to localhost:4318', async (t) => {
    const collector: OtlpReceiver | null = await startOtlpReceiver(4318).catch(() => null);
    if (collector === null) t.diagnostic('127.0.0.1:4318 is in use: the module check stands alone');
    try {
      const service = await startServiceProcess(
        {
          ...NO_OTEL,
          NODE_ENV: 'development',
          DATA_DIR: dataDir,
          DATABASE_URL: onPostgres ? database.url : '',
          PAYMENTS_SIMULATOR_PORT: '0',
          NODE_OPTIONS: PROBE.join(' '),
          LOADED_MODULES_FILE: probeFile,
        },
        { entry: 'dist/server.mjs' },
      );
      const token = await promisify(execFile)(
        process.execPath,
        ['dist/cli.mjs', 'token', '--sub', 'untraced-user'],
        { env: { ...process.env, ...NO_OTEL, DATA_DIR: dataDir } },
      );
      const me = await fetch(`${service.url}/api/v1/users/me`, {
        headers: { authorization: `Bearer ${token.stdout.trim()}` },
      });
      assert.equal(me.status, 200);
      await service.stop(); // a graceful close: an SDK would flush its spans now
      const lines = service.logged<{ msg?: string; url?: string; trace_id?: string }>();
      assert.ok(
        lines.some((line) => line.msg === 'request completed' && line.url === '/api/v1/users/me'),
      );
      assert.deepEqual(
        lines.filter((line) => 'trace_id' in line),
        [],
        'no trace in the log',
      );

      const { packages, registered } = await loaded();
      assert.ok(
        packages.includes('fastify') && packages.includes('pg'),
        'the probe saw the service',
      );
      assert.ok(packages.includes('@opentelemetry/api'), 'the API is loaded: the no-op');
      assert.deepEqual(
        packages.filter((name) => TRACING.test(name)),
        [],
      );
      assert.deepEqual(registered, [], 'nothing registered with the API');
      if (collector !== null) assert.equal(collector.requests, 0, 'nothing reached localhost:4318');
    } finally {
      await collector?.close();
    }
  });
});
