// npm run payments:replay: events the provider could not deliver (here: the service was not
// listening) are fetched and processed through the same exactly-once path; a second replay
// changes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { replayUndeliveredEvents } from '../../src/domain/webhooks/replay.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { operatorEnv, payWhileUnreachable, runCli, tierOf } from '../helpers/cli.ts';
import { databaseLabel, onPostgres } from '../helpers/database.ts';

describe(`replay of undelivered events (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  test('undelivered events are processed once, and a second replay only finds duplicates', async () => {
    await payWhileUnreachable(t, 'replay-user');
    assert.equal(await tierOf(t, 'replay-user'), 'free');
    const {
      payments,
      services: { webhooks },
    } = t.composition;
    const first = await replayUndeliveredEvents(payments, webhooks);
    assert.ok(first.processed >= 3, JSON.stringify(first));
    assert.equal(await tierOf(t, 'replay-user'), 'pro');
    const second = await replayUndeliveredEvents(payments, webhooks);
    assert.deepEqual(second, {
      total: first.total,
      processed: 0,
      duplicate: first.total,
      ignored: 0,
    });
  });

  test(
    'the replay-events command (npm run payments:replay) does the same from its own process',
    { skip: !onPostgres && 'a second process needs PostgreSQL' },
    async () => {
      await payWhileUnreachable(t, 'replay-cli-user');
      const run = await runCli(['replay-events'], operatorEnv(t));
      assert.equal(run.code, 0, run.stderr);
      assert.match(
        run.stdout,
        /^replayed \d+ event\(s\): [1-9]\d* processed, \d+ duplicate, \d+ ignored\n$/,
      );
      assert.match(run.stderr, /^\[1\/\d+\] evt_\w+: (processed|duplicate|ignored)$/m);
      assert.equal(await tierOf(t, 'replay-cli-user'), 'pro');
    },
  );
});
