// `npm run cli -- credits show <subject>` and `credits adjust <subject> <+n|-n> --reason "..."`
// (contract section 14, Operator): show prints the balance, the grant, purchased credits and the
// entries; adjust adds an `adjustment` entry with the reason, and never takes the balance below zero
// (refused in one line, non-zero exit, nothing changed). Usage errors: one line, exit 2.
// The operator's functions run in-process on both databases; the command itself runs as its own
// process on PostgreSQL only (a second process cannot open the test's in-memory PGlite), and its
// usage errors, which open no database, on both.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { UNREAD_METRICS } from '../../src/adapters/metrics/unread.ts';
import { tierPolicy } from '../../src/composition.ts';
import { creditsPolicy } from '../../src/composition/services.ts';
import {
  UnknownOrganizationError,
  UnknownUserError,
} from '../../src/domain/billing/operator-errors.ts';
import {
  adjustCredits,
  CreditAdjustmentRefused,
  showCredits,
} from '../../src/domain/credits/credit-operator.ts';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { operatorEnv, runCli } from '../helpers/cli.ts';
import { databaseLabel, onPostgres } from '../helpers/database.ts';
import { memberToken } from '../helpers/organizations.ts';

interface Entry {
  id: string;
  kind: string;
  amount: number;
  balance_after: number;
  reason: string | null;
}

const oneLine = (text: string) => text.trimEnd().split('\n').length === 1;

describe(`credits command (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const deps = () => ({
    store: t.composition.store,
    policy: tierPolicy(t.config),
    credits: creditsPolicy(t.config, UNREAD_METRICS),
    issuer: t.config.organizations?.issuer ?? null,
  });

  const read = async (token: string) => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/credits',
      headers: bearer(token),
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as { balance: number; purchased: number };
  };

  const newest = async (token: string): Promise<Entry> => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/credits/ledger?limit=1',
      headers: bearer(token),
    });
    return response.json().entries[0];
  };

  test('adjust +n: an adjustment entry with the reason, as purchased credits', async () => {
    const token = await t.token('cli-ada');
    const start = await read(token);
    const balance = await adjustCredits(
      deps(),
      { type: 'user', idpId: 'cli-ada' },
      { delta: 40, reason: 'goodwill for the outage' },
    );
    assert.equal(balance, start.balance + 40);
    const now = await read(token);
    assert.equal(now.balance, start.balance + 40);
    assert.equal(now.purchased, start.purchased + 40);
    const entry = await newest(token);
    assert.deepEqual(
      [entry.kind, entry.amount, entry.balance_after, entry.reason],
      ['adjustment', 40, start.balance + 40, 'goodwill for the outage'],
    );
  });

  test('adjust -n below zero is refused and changes nothing; -n within the balance is taken', async () => {
    const token = await t.token('cli-bea');
    const start = await read(token);
    const before = await newest(token);
    await assert.rejects(
      adjustCredits(
        deps(),
        { type: 'user', idpId: 'cli-bea' },
        { delta: -(start.balance + 1), reason: 'too much' },
      ),
      CreditAdjustmentRefused,
    );
    assert.deepEqual(await read(token), start);
    assert.deepEqual(await newest(token), before);
    const balance = await adjustCredits(
      deps(),
      { type: 'user', idpId: 'cli-bea' },
      { delta: -start.balance, reason: 'all of it' },
    );
    assert.equal(balance, 0);
    const entry = await newest(token);
    assert.deepEqual(
      [entry.kind, entry.amount, entry.balance_after],
      ['adjustment', -start.balance, 0],
    );
  });

  test("an organisation's credits by its idp_org_id; an unknown user or organisation is refused", async () => {
    const owner = await memberToken(t, 'cli-owner', 'cli-org', 'owner');
    const start = await read(owner);
    await adjustCredits(
      deps(),
      { type: 'organization', idpId: 'cli-org' },
      { delta: 7, reason: 'for the team' },
    );
    assert.equal((await read(owner)).balance, start.balance + 7);
    const shown = await showCredits(deps(), { type: 'organization', idpId: 'cli-org' });
    assert.equal(shown.entries[0]!.kind, 'adjustment');
    assert.equal(shown.entries[0]!.reason, 'for the team');
    await assert.rejects(
      showCredits(deps(), { type: 'user', idpId: 'cli-nobody' }),
      UnknownUserError,
    );
    await assert.rejects(
      adjustCredits(
        deps(),
        { type: 'organization', idpId: 'cli-no-org' },
        { delta: 5, reason: 'x' },
      ),
      UnknownOrganizationError,
    );
  });

  test('usage errors: one line on stderr, exit 2, nothing opened', async () => {
    const runs = await Promise.all(
      (
        [
          [['credits', 'show', 'alice'], /user:<idp_id> or org:<idp_org_id>/],
          [['credits', 'adjust', 'user:x', '5', '--reason', 'r'], /<\+n\|-n>/],
          [['credits', 'adjust', 'user:x', '+5'], /--reason/],
        ] as const
      ).map(async ([args, message]) => ({
        args,
        message,
        run: await runCli([...args], { ...t.env, DATABASE_URL: 'postgres://127.0.0.1:9/none' }),
      })),
    );
    for (const { args, message, run } of runs) {
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.equal(run.stdout, '');
      assert.ok(oneLine(run.stderr), run.stderr);
      assert.match(run.stderr, message);
    }
  });

  test(
    'as a process: show prints the balance and entries; adjust -n below zero is refused in one line; +n adds an entry',
    { skip: !onPostgres && 'a second process cannot open in-memory PGlite' },
    async () => {
      const env = operatorEnv(t);
      const token = await t.token('cli-cy');
      const start = await read(token);
      const added = await runCli(
        ['credits', 'adjust', 'user:cli-cy', '+25', '--reason', 'support ticket 42'],
        env,
      );
      assert.equal(added.code, 0, added.stderr);
      assert.match(added.stdout, new RegExp(`balance ${start.balance + 25}\\b`));
      const entry = await newest(token);
      assert.deepEqual(
        [entry.kind, entry.amount, entry.reason],
        ['adjustment', 25, 'support ticket 42'],
      );
      const refused = await runCli(
        ['credits', 'adjust', 'user:cli-cy', `-${start.balance + 26}`, '--reason', 'too much'],
        env,
      );
      assert.notEqual(refused.code, 0);
      assert.notEqual(refused.code, 2, 'not a usage error');
      assert.ok(oneLine(refused.stderr), refused.stderr);
      assert.match(refused.stderr, /below zero/);
      assert.equal((await read(token)).balance, start.balance + 25);
      assert.deepEqual(await newest(token), entry);
      const shown = await runCli(['credits', 'show', 'user:cli-cy'], env);
      assert.equal(shown.code, 0, shown.stderr);
      const lines = shown.stdout.trimEnd().split('\n');
      assert.equal(lines[0], `user:cli-cy: balance ${start.balance + 25}`);
      assert.match(shown.stdout, /^grant: /m);
      assert.match(shown.stdout, new RegExp(`^purchased: ${start.purchased + 25}$`, 'm'));
      assert.ok(
        lines.some((line) =>
          new RegExp(
            `^${entry.id}\\t\\S+\\tadjustment\\t\\+25\\t= ${start.balance + 25}\\tsupport ticket 42$`,
          ).test(line),
        ),
        shown.stdout,
      );
    },
  );
});
