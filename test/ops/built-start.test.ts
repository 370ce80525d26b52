// What `npm start` runs: scripts/build.mjs compiles src/ into dist/, and plain node serves it.
// From an empty DATA_DIR the built service must find its migrations (/readyz is 503 while one is
// missing), and the built CLI's token must be accepted. PGlite, the embedded PostgreSQL's launcher
// and the payment simulator must stay out of the modules dist/server.mjs loads up front: a
// production deployment (PostgreSQL, Stripe) never loads them.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import {
  createTestDatabase,
  databaseLabel,
  onPostgres,
  type TestDatabase,
} from '../helpers/database.ts';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.ts';
import { freshDataDir } from '../helpers/data-dir.ts';

/** Every file `file` imports statically (following relative imports), and the packages they import. */
function staticGraph(
  file: string,
  files = new Set<string>(),
  packages = new Set<string>(),
): { files: Set<string>; packages: Set<string> } {
  if (files.has(file)) return { files, packages };
  files.add(file);
  // esbuild's output: `import {\n  a\n} from "x";`, `import x from "x";`, `import "x";` at line starts.
  for (const [, specifier] of readFileSync(file, 'utf8').matchAll(
    /^(?:import|export)\b[^'"]*?"([^"]+)";/gm,
  )) {
    if (specifier!.startsWith('.')) staticGraph(join(dirname(file), specifier!), files, packages);
    else packages.add(specifier!);
  }
  return { files, packages };
}

describe(`the built service (${databaseLabel})`, () => {
  let database: TestDatabase;
  let dataDir: string;
  let service: ServiceProcess | undefined;
  before(async () => {
    const built = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
    assert.equal(built.status, 0, `scripts/build.mjs failed: ${built.stderr}`);
    database = await createTestDatabase();
    dataDir = freshDataDir('billing-built');
  });
  after(async () => {
    await service?.stop();
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('dist/server.mjs loads PGlite, the embedded PostgreSQL and the payment simulator only on demand', () => {
    const { files, packages } = staticGraph('dist/server.mjs');
    assert.ok(
      packages.has('fastify') && packages.has('pg'),
      `the walk found the service's imports: ${[...packages].join(', ')}`,
    );
    assert.ok(
      ![...packages].some((name) => name.startsWith('@electric-sql/pglite')),
      'PGlite is imported up front',
    );
    // Each the definition of one module's function: the simulator's server, its entry, the embedded launcher.
    const loaded = [...files].map((path) => readFileSync(path, 'utf8')).join('\n');
    for (const name of [
      'buildSimulatorServer',
      'startPaymentsSimulator',
      'startEmbeddedSimulator',
      'startEmbeddedPostgres',
    ]) {
      const marker = `function ${name}(`;
      assert.ok(
        !loaded.includes(marker),
        `${name} is in the modules dist/server.mjs loads up front`,
      );
    }
    assert.ok(loaded.includes('function serveDatabase('), 'the walk read the composition');
  });

  test('node dist/server.mjs on an empty DATA_DIR: migrated, ready, and serves /users/me', async () => {
    // As `npm start` on a laptop: development identity provider and payment simulator embedded;
    // on the PGlite half, the embedded database in DATA_DIR.
    const env = {
      NODE_ENV: 'development',
      DATA_DIR: dataDir,
      DATABASE_URL: onPostgres ? database.url : '',
      PAYMENTS_SIMULATOR_PORT: '0',
    };
    service = await startServiceProcess(env, { entry: 'dist/server.mjs' });
    assert.equal((await fetch(`${service.url}/healthz`)).status, 200);
    const ready = await fetch(`${service.url}/readyz`);
    assert.equal(ready.status, 200, `readyz: ${await ready.text()}`);

    const { stdout: token } = await promisify(execFile)(
      process.execPath,
      ['dist/cli.mjs', 'token', '--sub', 'built-user', '--email', 'built@example.com'],
      {
        env: { ...process.env, ...env, PORT: '0' },
      },
    );
    const me = await fetch(`${service.url}/api/v1/users/me`, {
      headers: { authorization: `Bearer ${token.trim()}` },
    });
    assert.equal(me.status, 200);
    assert.equal(((await me.json()) as { idp_id: string }).idp_id, 'built-user');
  });
});
