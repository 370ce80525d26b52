// A provider that throttles (429, Retry-After) is a normal answer, not a lost event: a delivery
// that needs a read fails cleanly (503 with Retry-After, nothing recorded) so the provider sends it
// again, and the replay command waits as long as the provider asks, then goes on.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { replayUndeliveredEvents } from '../../src/domain/webhooks/replay.ts';
import type { TestApp } from '../helpers/app.ts';
import { payWhileUnreachable, tierOf } from '../helpers/cli.ts';
import { databaseLabel } from '../helpers/database.ts';
import { deliver } from '../helpers/stripe-fixtures.ts';
import {
  buildAppWithFaultyProvider,
  type AppWithFaultyProvider,
  type FaultyProvider,
} from '../helpers/faulty-provider.ts';

const THROTTLED = {
  kind: 'reply',
  status: 429,
  headers: { 'retry-after': '7' },
  body: {
    error: {
      type: 'invalid_request_error',
      code: 'rate_limit',
      message: 'Too many requests hit the API too quickly.',
    },
  },
} as const;

describe(`a throttling payment provider (${databaseLabel})`, () => {
  let stack: AppWithFaultyProvider;
  let provider: FaultyProvider;
  let t: TestApp;
  before(async () => {
    stack = await buildAppWithFaultyProvider();
    ({ provider, t } = stack);
  });
  after(() => stack.close());

  const recorded = async (ids: string[]) =>
    (
      await t.composition.db.query<{ id: string }>(
        'SELECT id FROM webhook_events WHERE id = ANY($1)',
        [ids],
      )
    ).map((r) => r.id);

  test('a delivery that needs a throttled read answers 503 with Retry-After, records nothing, and succeeds when sent again', async () => {
    await payWhileUnreachable(t, 'throttled');
    const invoicePaid = (await stack.undelivered()).find((e) => e.type === 'invoice.paid')!;
    provider.front.inject('GET', /^\/v1\/subscriptions\/sub_/, THROTTLED, 2);
    for (let attempt = 0; attempt < 2; attempt++) {
      const answer = await deliver(t.app, invoicePaid);
      assert.equal(answer.statusCode, 503);
      assert.equal(answer.headers['retry-after'], '7');
      assert.deepEqual(await recorded([invoicePaid.id]), []);
    }
    const [failures] = await t.composition.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_failures WHERE event_id = $1',
      [invoicePaid.id],
    );
    assert.equal(failures!.n, 2);
    assert.deepEqual((await deliver(t.app, invoicePaid)).json(), { status: 'processed' });
    assert.equal(await tierOf(t, 'throttled'), 'pro');
  });

  test('the replay waits as the provider asks and goes on: every undelivered event is processed', async () => {
    await payWhileUnreachable(t, 'throttled-replay');
    const events = await stack.undelivered();
    provider.front.inject('GET', /^\/v1\/events$/, THROTTLED, 1);
    provider.front.inject('GET', /^\/v1\/subscriptions\/sub_/, THROTTLED, 3);
    const waits: number[] = [];
    const {
      payments,
      services: { webhooks },
    } = t.composition;
    const summary = await replayUndeliveredEvents(payments, webhooks, {
      sleep: async (ms) => void waits.push(ms),
    });
    assert.deepEqual(waits, [7000, 7000, 7000, 7000]);
    assert.equal(summary.total, events.length);
    assert.deepEqual(
      (await recorded(events.map((e) => e.id))).sort(),
      events.map((e) => e.id).sort(),
    );
    assert.equal(await tierOf(t, 'throttled-replay'), 'pro');
  });
});
