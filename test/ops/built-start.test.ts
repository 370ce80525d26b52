// What `npm start` runs: scripts/build.mjs compiles src/ into dist/, and plain node serves it.
// From an empty DATA_DIR the built service must find its migrations (/readyz is 503 while one is
// missing), and the built CLI's token must be accepted. PGlite must stay out of the modules
// dist/server.mjs loads up front: a PostgreSQL deployment never pays its 34 MB.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, databaseLabel, onPostgres, type TestDatabase } from '../helpers/database.ts';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.ts';

/** The bare specifiers of every module `file` imports statically, following its relative imports. */
function staticImports(file: string, seen = new Set<string>(), found = new Set<string>()): Set<string> {
  if (seen.has(file)) return found;
  seen.add(file);
  // esbuild's output: `import {\n  a\n} from "x";`, `import x from "x";`, `import "x";` at line starts.
  for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/^(?:import|export)\b[^'"]*?"([^"]+)";/gm)) {
    if (specifier!.startsWith('.')) staticImports(join(dirname(file), specifier!), seen, found);
    else found.add(specifier!);
  }
  return found;
}

describe(`the built service (${databaseLabel})`, () => {
  let database: TestDatabase;
  let dataDir: string;
  let service: ServiceProcess | undefined;
  before(async () => {
    const built = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
    assert.equal(built.status, 0, `scripts/build.mjs failed: ${built.stderr}`);
    database = await createTestDatabase();
    dataDir = await mkdtemp(join(tmpdir(), 'billing-built-'));
  });
  after(async () => {
    await service?.stop();
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('dist/server.mjs loads PGlite only on demand', () => {
    const imports = staticImports('dist/server.mjs');
    assert.ok(imports.has('fastify') && imports.has('pg'), `the walk found the service's imports: ${[...imports].join(', ')}`);
    assert.ok(![...imports].some((name) => name.startsWith('@electric-sql/pglite')), 'PGlite is imported up front');
  });

  test('node dist/server.mjs on an empty DATA_DIR: migrated, ready, and serves /users/me', async () => {
    // As `npm start` on a laptop: development identity provider and payment simulator embedded;
    // on the PGlite half, the embedded database in DATA_DIR.
    const env = { NODE_ENV: 'development', DATA_DIR: dataDir, DATABASE_URL: onPostgres ? database.url : '', PAYMENTS_SIMULATOR_PORT: '0' };
    service = await startServiceProcess(env, { entry: 'dist/server.mjs' });
    assert.equal((await fetch(`${service.url}/healthz`)).status, 200);
    const ready = await fetch(`${service.url}/readyz`);
    assert.equal(ready.status, 200, `readyz: ${await ready.text()}`);

    const { stdout: token } = await promisify(execFile)(process.execPath, ['dist/cli.mjs', 'token', '--sub', 'built-user', '--email', 'built@example.com'], {
      env: { ...process.env, ...env, PORT: '0' },
    });
    const me = await fetch(`${service.url}/api/v1/users/me`, { headers: { authorization: `Bearer ${token.trim()}` } });
    assert.equal(me.status, 200);
    assert.equal(((await me.json()) as { idp_id: string }).idp_id, 'built-user');
  });
});
