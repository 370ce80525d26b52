// sync-user: the provider is the source of truth. A subscription paid while the service was not
// listening (so no webhook arrived) is read back and sets the tier; a cancellation the service
// missed is read back too; events replayed afterwards do not undo what the re-read stored.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { tierPolicy } from '../../src/composition.ts';
import { UnknownUserError } from '../../src/domain/billing/operator-errors.ts';
import { syncUser } from '../../src/domain/billing/sync-user.ts';
import { replayUndeliveredEvents } from '../../src/domain/webhooks/replay.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { operatorEnv, payWhileUnreachable, runCli, tierOf } from '../helpers/cli.ts';
import { databaseLabel, onPostgres } from '../helpers/database.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';

describe(`sync-user (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const sync = (idpId: string) => {
    const { store, payments } = t.composition;
    return syncUser(
      { store, payments, policy: tierPolicy(t.config), log: t.composition.logger },
      idpId,
    );
  };

  test('a subscription no webhook told us about sets the tier', async () => {
    await payWhileUnreachable(t, 'sync-ada');
    assert.equal(await tierOf(t, 'sync-ada'), 'free');
    const result = await sync('sync-ada');
    assert.equal(result.tierBefore, 'free');
    assert.equal(result.tierAfter, 'pro');
    assert.match(result.customerId ?? '', /^cus_/);
    assert.equal(result.subscriptions.length, 1);
    assert.match(result.subscriptions[0]!, /^sub_\w+ \(active\)$/);
    assert.equal(await tierOf(t, 'sync-ada'), 'pro');
  });

  test('running it again changes nothing', async () => {
    await payWhileUnreachable(t, 'sync-bo');
    await sync('sync-bo');
    const again = await sync('sync-bo');
    assert.deepEqual([again.tierBefore, again.tierAfter], ['pro', 'pro']);
    const rows = await t.composition.db.query(
      'SELECT s.id FROM subscriptions s JOIN users u ON u.id = s.user_id WHERE u.idp_id = $1',
      ['sync-bo'],
    );
    assert.equal(rows.length, 1);
  });

  test('a cancellation the service missed is read back, and replaying the older events does not undo it', async () => {
    await payWhileUnreachable(t, 'sync-cy');
    await sync('sync-cy');
    const [row] = await t.composition.db.query<{ id: string }>(
      'SELECT s.id FROM subscriptions s JOIN users u ON u.id = s.user_id WHERE u.idp_id = $1',
      ['sync-cy'],
    );
    await simulatorClient(t).subscriptions.cancel(row!.id);
    const result = await sync('sync-cy');
    assert.deepEqual([result.tierBefore, result.tierAfter], ['pro', 'free']);
    assert.match(result.subscriptions[0]!, /\(canceled\)$/);
    const {
      payments,
      services: { webhooks },
    } = t.composition;
    await replayUndeliveredEvents(payments, webhooks);
    assert.equal(await tierOf(t, 'sync-cy'), 'free');
  });

  test('a user who never checked out has nothing to read and keeps the free tier', async () => {
    await tierOf(t, 'sync-dee');
    assert.deepEqual(await sync('sync-dee'), {
      idpId: 'sync-dee',
      customerId: null,
      subscriptions: [],
      tierBefore: 'free',
      tierAfter: 'free',
    });
  });

  test('an unknown user is refused', async () => {
    await assert.rejects(sync('sync-nobody'), UnknownUserError);
  });

  test(
    'the sync-user command prints the tier before and after',
    { skip: !onPostgres && 'needs PostgreSQL: a second process cannot open the in-memory PGlite' },
    async () => {
      await payWhileUnreachable(t, 'sync-cli');
      const run = await runCli(['sync-user', 'sync-cli'], operatorEnv(t));
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /^tier before: free$/m);
      assert.match(run.stdout, /^tier after: pro$/m);
      assert.match(run.stdout, /^subscriptions: sub_\w+ \(active\)$/m);
      assert.equal(await tierOf(t, 'sync-cli'), 'pro');
    },
  );
});
