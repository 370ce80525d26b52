// npm run payments:replay: events the provider could not deliver (here: the service was not
// listening) are fetched and processed through the same exactly-once path; a second replay
// changes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { replayUndeliveredEvents } from '../../src/domain/webhooks/replay.ts';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { runCli } from '../helpers/cli.ts';
import { databaseLabel, onPostgres } from '../helpers/database.ts';

describe(`replay of undelivered events (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  async function payWhileUnreachable(sub: string): Promise<string> {
    const token = await t.token(sub);
    const { url } = (await t.app.inject({ method: 'POST', url: '/api/v1/billing/checkout', headers: bearer(token), payload: {} })).json();
    const paid = await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    assert.equal(paid.status, 303);
    return token;
  }
  const tierOf = async (token: string) => (await t.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(token) })).json().tier;

  test('undelivered events are processed once, and a second replay only finds duplicates', async () => {
    const token = await payWhileUnreachable('replay-user');
    assert.equal(await tierOf(token), 'free');
    const { payments, webhooks } = t.composition.services;
    const first = await replayUndeliveredEvents(payments, webhooks);
    assert.ok(first.processed >= 3, JSON.stringify(first));
    assert.equal(await tierOf(token), 'pro');
    const second = await replayUndeliveredEvents(payments, webhooks);
    assert.deepEqual(second, { total: first.total, processed: 0, duplicate: first.total, ignored: 0 });
  });

  test('the replay-events command (npm run payments:replay) does the same from its own process', { skip: !onPostgres && 'a second process needs PostgreSQL' }, async () => {
    const token = await payWhileUnreachable('replay-cli-user');
    const run = await runCli(['replay-events'], t.env);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^replayed \d+ event\(s\): [1-9]\d* processed, \d+ duplicate, \d+ ignored\n$/);
    assert.match(run.stderr, /^\[1\/\d+\] evt_\w+: (processed|duplicate|ignored)$/m);
    assert.equal(await tierOf(token), 'pro');
  });
});
