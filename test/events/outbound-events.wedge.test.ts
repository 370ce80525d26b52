// Outbound events that no answer can wedge: an answer whose bytes text cannot hold (a GIF, with its
// NUL bytes) is kept escaped and the event goes on the backoff like any failure, holding its
// subject's later events until it is given up after its 3 days, and not beyond; a receiver slow to
// answer one subject's event holds up that subject only.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createOutbox } from '../../src/adapters/database/outbox.ts';
import { createHttpSender } from '../../src/adapters/events/http-sender.ts';
import { DeliveryWorker } from '../../src/domain/events/delivery-worker.ts';
import { profileOf, type TestApp, buildTestApp } from '../helpers/app.ts';
import { startAppReceiver, type AppReceiver } from '../helpers/app-receiver.ts';
import { databaseLabel } from '../helpers/database.ts';
import { deliver, eventOf, subscriptionObject } from '../helpers/stripe-fixtures.ts';

const SILENT = { debug() {}, info() {}, warn() {}, error() {} };
const GIF = Buffer.from([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00]);

describe(`outbound events nothing can wedge (${databaseLabel})`, () => {
  let t: TestApp;
  let receiver: AppReceiver;
  before(async () => {
    receiver = await startAppReceiver();
    t = await buildTestApp({ APP_WEBHOOK_URL: receiver.url, APP_WEBHOOK_SECRET: receiver.secret });
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });
  beforeEach(async () => {
    await t.composition.db.query('DELETE FROM outbound_events');
    receiver.arrivals.length = 0;
  });

  const worker = (clock: () => Date = () => new Date()) =>
    new DeliveryWorker({
      outbox: createOutbox(t.composition.db, 'free'),
      sender: createHttpSender({ url: () => receiver.url, secrets: () => [receiver.secret] }),
      holder: 'wedge-test',
      log: SILENT,
      clock,
      pollMs: 200,
    });
  const states = async (subject: string) =>
    (
      await t.composition.db.query<{ state: string }>(
        'SELECT state FROM outbound_events WHERE subject_id = $1 ORDER BY seq',
        [subject],
      )
    ).map((row) => row.state);
  /** A checkout of `idp`'s, then, when asked, its cancellation: a tier change each. */
  const subscribed = async (idp: string) => {
    const user = await profileOf(t, idp);
    const subscription = subscriptionObject({ metadata: { user_id: user.id } });
    const created = Math.floor(Date.now() / 1000) - 10;
    await deliver(t.app, eventOf('customer.subscription.created', subscription, { created }));
    const cancel = () =>
      deliver(
        t.app,
        eventOf(
          'customer.subscription.deleted',
          { ...subscription, status: 'canceled' },
          { created: created + 1 },
        ),
      );
    return { user, cancel };
  };

  test('an answer of bytes no text holds: kept escaped, on the backoff, given up after its 3 days', async () => {
    const { user, cancel } = await subscribed('gif-receiver');
    receiver.answers.push(500, 500);
    receiver.bodies.push(GIF, GIF);
    let shift = 0;
    const w = worker(() => new Date(Date.now() + shift));
    assert.equal(await w.deliverDue(), 1);
    const [attempt] = await t.composition.db.query<{ status: number; answer: string }>(
      'SELECT status, answer FROM outbound_deliveries',
    );
    assert.deepEqual(attempt, {
      status: 500,
      answer: 'GIF89a\\u0001\\u0000\\u0001\\u0000\ufffd\\u0000',
    });
    await cancel();
    assert.deepEqual(await states(user.id), ['pending', 'pending']);
    assert.equal(await w.deliverDue(), 0, 'the first waits for its retry, the next behind it');
    // Its 3 days run out at the next attempt, which fails as well.
    await t.composition.db.query(
      `UPDATE outbound_events SET created_at = created_at - interval '3 days',
         retry_from = retry_from - interval '3 days'
       WHERE seq = (SELECT min(seq) FROM outbound_events WHERE subject_id = $1)`,
      [user.id],
    );
    shift = 60_000;
    assert.equal(await w.deliverDue(), 1);
    assert.deepEqual(await states(user.id), ['failed', 'pending']);
    assert.equal(await w.deliverDue(), 1);
    assert.deepEqual(await states(user.id), ['failed', 'delivered']);
    assert.equal(receiver.arrivals.at(-1)!.payload.type, 'tier.changed');
  });

  test("a receiver slow to answer one subject's event holds up no other subject's", async () => {
    const w = worker();
    w.start();
    try {
      receiver.delays.push(8_000);
      const slow = await subscribed('slow-subject');
      while (receiver.arrivals.length === 0) await new Promise((r) => setTimeout(r, 50));
      const startedAt = Date.now();
      const other = await subscribed('other-subject');
      while (!receiver.arrivals.some((a) => a.payload.data.subject.id === other.user.id))
        await new Promise((r) => setTimeout(r, 50));
      assert.ok(Date.now() - startedAt < 5_000, `${Date.now() - startedAt} ms`);
      assert.deepEqual(await states(slow.user.id), ['pending'], 'still being answered');
    } finally {
      await w.stop();
    }
  });
});
