// npm test: the whole suite on the embedded database (PGlite), then on PostgreSQL: the service's
// tests (test/) and those of each workspace package (packages/*/test/), in one run per database.
// PostgreSQL comes from TEST_POSTGRES_URL, or a throwaway cluster when its binaries are here;
// without either the PostgreSQL half is skipped and said so, unless REQUIRE_POSTGRES=1 (CI).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';

const filter = process.argv.slice(2);
const walk = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : path.endsWith('.test.ts') ? [path] : [];
  });
const packageTests = readdirSync('packages')
  .map((name) => join('packages', name, 'test'))
  .filter((dir) => existsSync(dir));
const files = ['test', ...packageTests]
  .flatMap(walk)
  .filter((file) => filter.length === 0 || filter.some((part) => file.includes(part)))
  .sort();

function run(label, env) {
  console.log(`\n=== ${label}: ${files.length} test files ===`);
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
      {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      process.stdout.write(chunk);
    });
    child.on('close', (code) => {
      const count = (name) => Number(new RegExp(`ℹ ${name} (\\d+)`).exec(output)?.[1] ?? 0);
      resolve({
        code,
        pass: count('pass'),
        fail: count('fail') + count('cancelled'),
        skipped: count('skipped') + count('todo'),
      });
    });
  });
}

function startThrowawayPostgres() {
  const hasBinaries =
    spawnSync('sh', ['-c', 'ls /usr/lib/postgresql/*/bin/initdb || command -v initdb'], {
      stdio: 'ignore',
    }).status === 0;
  if (!hasBinaries) return null;
  const dir = join(tmpdir(), `billing-test-pg-${process.pid}`);
  const port = String(20000 + (process.pid % 20000));
  const started = spawnSync('bash', ['scripts/postgres.sh', 'start', dir, port], {
    encoding: 'utf8',
  });
  if (started.status !== 0) {
    console.error(`could not start PostgreSQL: ${started.stderr}`);
    return null;
  }
  const stop = () => {
    spawnSync('bash', ['scripts/postgres.sh', 'stop', dir], { stdio: 'inherit' });
    rmSync(dir, { recursive: true, force: true });
  };
  return { url: started.stdout.trim(), stop };
}

const results = [await run('PGlite (embedded)', { TEST_DATABASE: 'pglite' })];
const throwaway = process.env.TEST_POSTGRES_URL ? null : startThrowawayPostgres();
const postgresUrl = process.env.TEST_POSTGRES_URL ?? throwaway?.url;
try {
  if (postgresUrl) {
    results.push(
      await run('PostgreSQL', { TEST_DATABASE: 'postgres', TEST_POSTGRES_URL: postgresUrl }),
    );
  } else {
    console.log(
      '\nPostgreSQL half SKIPPED: no TEST_POSTGRES_URL and no PostgreSQL binaries on this machine.',
    );
    if (process.env.REQUIRE_POSTGRES === '1')
      results.push({ code: 1, pass: 0, fail: 1, skipped: 0 });
  }
} finally {
  throwaway?.stop();
}

const sum = (key) => results.reduce((total, result) => total + result[key], 0);
console.log(`\ntotal: ${sum('pass')} passed, ${sum('fail')} failed, ${sum('skipped')} skipped`);
process.exit(results.some((result) => result.code !== 0) ? 1 : 0);
