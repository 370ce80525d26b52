// npm test: the whole suite on the embedded database (PGlite), then on PostgreSQL: the service's
// tests (test/) and those of each workspace package (packages/*/test/), in one run per database.
// PostgreSQL comes from TEST_POSTGRES_URL, or a throwaway cluster when its binaries are here;
// without either the PostgreSQL half is skipped and said so, unless REQUIRE_POSTGRES=1 (CI).
// TEST_PGBOUNCER=1 runs that half through a throwaway PgBouncer in transaction mode;
// TEST_HALVES=postgres runs that half only (CI's second run, on another Node).
// The service is built once first, as npm start builds it, into a directory of its own
// (test-artifacts/dist: tests that build dist/ themselves never race it); the tests spawn that
// build with plain node (test/helpers/entry.ts).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
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

const builtDir = resolve('test-artifacts', 'dist');
if (spawnSync(process.execPath, ['scripts/build.mjs', builtDir], { stdio: 'inherit' }).status !== 0)
  process.exit(1);

function run(label, env) {
  console.log(`\n=== ${label}: ${files.length} test files ===`);
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
      {
        env: { ...process.env, TEST_BUILT_DIR: builtDir, ...env },
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

/** Runs `scripts/<script> start DIR PORT ...args`; its URL and how to stop it, or null. */
function startThrowaway(script, name, port, args = []) {
  const dir = join(tmpdir(), `billing-test-${name}-${process.pid}`);
  const started = spawnSync('bash', [`scripts/${script}`, 'start', dir, port, ...args], {
    encoding: 'utf8',
  });
  if (started.status !== 0) {
    console.error(`could not start ${name}: ${started.stderr}`);
    return null;
  }
  const stop = () => {
    spawnSync('bash', [`scripts/${script}`, 'stop', dir], { stdio: 'inherit' });
    rmSync(dir, { recursive: true, force: true });
  };
  return { url: started.stdout.trim(), stop };
}

function startThrowawayPostgres() {
  const hasBinaries =
    spawnSync('sh', ['-c', 'ls /usr/lib/postgresql/*/bin/initdb || command -v initdb'], {
      stdio: 'ignore',
    }).status === 0;
  if (!hasBinaries) return null;
  return startThrowaway('postgres.sh', 'pg', String(20000 + (process.pid % 20000)));
}

const halves = (process.env.TEST_HALVES ?? 'pglite,postgres').split(',');
// Where the files that run in one half only run (onceInTheSuite, in test/helpers/database.ts and
// the simulator's test harness): the PostgreSQL half when there will be one in this run, else the
// PGlite half. TEST_ONCE_SKIP is their reason to skip in the other.
const throwaway =
  process.env.TEST_POSTGRES_URL || !halves.includes('postgres') ? null : startThrowawayPostgres();
const onceIn =
  halves.includes('postgres') && (process.env.TEST_POSTGRES_URL || throwaway)
    ? 'postgres'
    : 'pglite';
const onceSkip = (half) =>
  half === onceIn
    ? ''
    : `runs once, in the ${onceIn === 'postgres' ? 'PostgreSQL' : 'PGlite'} half`;
const results = halves.includes('pglite')
  ? [
      await run('PGlite (embedded)', {
        TEST_DATABASE: 'pglite',
        TEST_ONCE_SKIP: onceSkip('pglite'),
      }),
    ]
  : [];
const serverUrl = process.env.TEST_POSTGRES_URL ?? throwaway?.url;
// TEST_PGBOUNCER=1: the PostgreSQL half through a PgBouncer in transaction mode in front of it.
const bouncer =
  serverUrl && process.env.TEST_PGBOUNCER === '1'
    ? startThrowaway('pgbouncer.sh', 'pgbouncer', String(20000 + ((process.pid + 1) % 20000)), [
        serverUrl,
      ])
    : null;
const postgresUrl = bouncer?.url ?? serverUrl;
try {
  if (!halves.includes('postgres')) {
    console.log('\nPostgreSQL half not run: TEST_HALVES leaves it out.');
  } else if (process.env.TEST_PGBOUNCER === '1' && !bouncer) {
    console.log('\nPostgreSQL half through PgBouncer FAILED: no PostgreSQL or no PgBouncer.');
    results.push({ code: 1, pass: 0, fail: 1, skipped: 0 });
  } else if (postgresUrl) {
    const label = bouncer ? 'PostgreSQL through PgBouncer' : 'PostgreSQL';
    results.push(
      await run(label, {
        TEST_DATABASE: 'postgres',
        TEST_POSTGRES_URL: postgresUrl,
        TEST_ONCE_SKIP: onceSkip('postgres'),
      }),
    );
  } else {
    console.log(
      '\nPostgreSQL half SKIPPED: no TEST_POSTGRES_URL and no PostgreSQL binaries on this machine.',
    );
    if (process.env.REQUIRE_POSTGRES === '1')
      results.push({ code: 1, pass: 0, fail: 1, skipped: 0 });
  }
} finally {
  bouncer?.stop();
  throwaway?.stop();
}

const sum = (key) => results.reduce((total, result) => total + result[key], 0);
console.log(`\ntotal: ${sum('pass')} passed, ${sum('fail')} failed, ${sum('skipped')} skipped`);
process.exit(results.some((result) => result.code !== 0) ? 1 : 0);
