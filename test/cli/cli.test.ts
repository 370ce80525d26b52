// The command line itself: help, usage errors (one line on stderr, exit 2), and `token`, which needs
// no database and so runs as a process on both databases. The commands that open the database run
// as processes on PostgreSQL only: a second process cannot open the test's in-memory PGlite.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { operatorEnv, runCli, tierOf } from '../helpers/cli.ts';
import { databaseLabel, onPostgres } from '../helpers/database.ts';

const oneLine = (text: string) => text.trimEnd().split('\n').length === 1;

describe(`cli (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  test('--help lists every command; <command> --help shows its arguments', async () => {
    const overview = await runCli(['--help']);
    assert.equal(overview.code, 0);
    for (const name of ['migrate', 'token', 'set-plan', 'sync-user', 'replay-events'])
      assert.match(overview.stdout, new RegExp(`^  ${name} `, 'm'));
    const help = await runCli(['token', '--help']);
    assert.equal(help.code, 0);
    assert.match(
      help.stdout,
      /^usage: npm run cli -- token \[--sub <subject>\] \[--email <address>\] \[--ttl <seconds>\]/,
    );
    assert.match(help.stdout, /--ttl <seconds>/);
  });

  test('usage errors are one line on stderr and exit 2', async () => {
    for (const [args, message] of [
      [[], /no command given/],
      [['bogus'], /unknown command "bogus"/],
      [['token', '--sub', ' '], /token: --sub must not be empty/],
      [
        ['token', '--sub', 'a', '--email', 'a@example.com', '--ttl', 'soon'],
        /--ttl must be a whole number/,
      ],
      [['token', '--nope'], /Unknown option '--nope'/],
      [['set-plan', 'alice'], /set-plan: missing <plan>/],
      [['sync-user', 'a', 'b'], /sync-user: unexpected argument "b"/],
    ] as const) {
      const run = await runCli([...args], t.env);
      assert.equal(run.code, 2, args.join(' '));
      assert.equal(run.stdout, '');
      assert.ok(oneLine(run.stderr), run.stderr);
      assert.match(run.stderr, message);
    }
  });

  test('a bad configuration is one line naming the variable, exit 1', async () => {
    const run = await runCli(['migrate'], { ...t.env, DATABASE_URL: 'mysql://nowhere' });
    assert.equal(run.code, 1);
    assert.ok(oneLine(run.stderr), run.stderr);
    assert.match(run.stderr, /^error: Invalid configuration: DATABASE_URL/);
  });

  test('token prints just a token, which the service accepts', async () => {
    const run = await runCli(
      ['token', '--sub', 'cli-alice', '--email', 'cli-alice@example.com', '--ttl', '600'],
      t.env,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/v1/users/me',
      headers: bearer(run.stdout.trim()),
    });
    assert.equal(me.statusCode, 200);
    assert.equal(me.json().idp_id, 'cli-alice');
  });

  test('npm run token alone is for the default development user, said on stderr; users/me accepts it', async () => {
    const { stdout, stderr } = await promisify(execFile)('npm', ['run', '-s', 'token'], {
      env: { ...process.env, ...t.env },
    });
    assert.match(stdout, /^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    assert.match(stderr, /token for sub "dev-user", e-mail dev-user@example\.com/);
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/v1/users/me',
      headers: bearer(stdout.trim()),
    });
    assert.equal(me.statusCode, 200, me.body);
    assert.deepEqual([me.json().idp_id, me.json().email], ['dev-user', 'dev-user@example.com']);
  });

  test('npm run token keeps its documented form', async () => {
    const { stdout } = await promisify(execFile)(
      'npm',
      ['run', '-s', 'token', '--', '--sub', 'cli-npm', '--email', 'cli-npm@example.com'],
      { env: { ...process.env, ...t.env } },
    );
    assert.match(stdout, /^[\w-]+\.[\w-]+\.[\w-]+\n$/);
  });

  test(
    "a command on memory:// refuses in one line: that database is another process's own, a write there would be lost",
    { skip: onPostgres && 'the PGlite half' },
    async () => {
      const run = await runCli(['set-plan', 'cli-lost', 'team'], t.env);
      assert.equal(run.code, 1);
      assert.ok(oneLine(run.stderr), run.stderr);
      assert.match(
        run.stderr,
        /^error: DATABASE_URL=memory:\/\/ is an in-memory database of one process: another process cannot reach it/,
      );
    },
  );

  describe(
    'commands that open the database',
    { skip: !onPostgres && 'needs PostgreSQL: a second process cannot open the in-memory PGlite' },
    () => {
      test('migrate on an up-to-date database says so', async () => {
        const run = await runCli(['migrate'], t.env);
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stdout, 'database is up to date\n');
      });

      test('set-plan sets the plan the next checkout is priced at', async () => {
        await tierOf(t, 'cli-plan');
        const run = await runCli(['set-plan', 'cli-plan', 'team'], t.env);
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stdout, /^cli-plan: plan pro \(default\) -> team/);
        const [row] = await t.composition.db.query<{ plan: string }>(
          "SELECT plan FROM users WHERE idp_id = 'cli-plan'",
        );
        assert.equal(row!.plan, 'team');
      });

      test('set-plan refuses an unknown user or plan with one line, exit 1', async () => {
        await tierOf(t, 'cli-plan-2');
        for (const [args, message] of [
          [['set-plan', 'nobody', 'team'], /^error: no user with idp_id "nobody"/],
          [
            ['set-plan', 'cli-plan-2', 'gold'],
            /^error: unknown plan "gold": BILLING_PRICES has pro, team/,
          ],
          [['set-plan', 'cli-plan-2', 'free'], /^error: unknown plan "free"/],
        ] as const) {
          const run = await runCli([...args], t.env);
          assert.equal(run.code, 1, args.join(' '));
          assert.ok(oneLine(run.stderr), run.stderr);
          assert.match(run.stderr, message);
        }
      });

      test('sync-user of an unknown user is one line, exit 1', async () => {
        const run = await runCli(['sync-user', 'nobody'], operatorEnv(t));
        assert.equal(run.code, 1);
        assert.ok(oneLine(run.stderr), run.stderr);
        assert.match(run.stderr, /^error: no user with idp_id "nobody"/);
      });
    },
  );
});
