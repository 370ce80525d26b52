// At-least-once delivery: a failing endpoint (500, refused connection, no answer in time) gets the
// event again after the backoff delay, and the events list shows it under delivery_success=false
// until a 2xx arrives; events wait while the webhook URL is not known yet, and go out in order.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import { createDelivery } from '../src/delivery.ts';
import { AUTOMATIC, insertEvent } from '../src/events.ts';
import type { PaymentsSimulator } from '../src/index.ts';
import { ensureSchema } from '../src/schema.ts';
import {
  databaseLabel,
  openCheckout,
  openTestDb,
  pay,
  sdk,
  startReceiver,
  startSimulator,
  type Receiver,
  type TestDb,
  onceInTheSuite,
} from './harness.ts';

const undelivered = async (stripe: Stripe) =>
  (await stripe.events.list({ delivery_success: false, limit: 100 })).data.map((e) => e.id);
/**
 * The undelivered events once the last delivery's answer is recorded: the receiver sees a request
 * before the simulator reads its answer, so an empty list may take a moment (2 s at most).
 */
async function undeliveredAfterAnswers(stripe: Stripe): Promise<string[]> {
  const deadline = Date.now() + 2_000;
  for (;;) {
    const ids = await undelivered(stripe);
    if (ids.length === 0 || Date.now() > deadline) return ids;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe(`webhook delivery (${databaseLabel})`, onceInTheSuite, () => {
  let database: TestDb;
  let receiver: Receiver;
  let target: string | null = null;
  let simulator: PaymentsSimulator;
  let stripe: Stripe;
  before(async () => {
    database = await openTestDb();
    receiver = await startReceiver();
    target = receiver.url;
    simulator = await startSimulator(database.db, {
      webhookUrl: () => target,
      retryDelaysMs: [300, 300, 300],
    });
    stripe = sdk(simulator);
  });
  after(async () => {
    await simulator.close();
    await receiver.close();
    await database.close();
  });

  test('a 500 is retried after the delay; the event stays in delivery_success=false until it succeeds', async () => {
    const refused = new Set<string>();
    receiver.answer = (event, attempt) => {
      if (event.type === 'invoice.paid' && attempt === 1) {
        refused.add(event.id);
        return 500;
      }
      return 200;
    };
    const start = receiver.events.length;
    const { session } = await openCheckout(stripe, 'retry-user');
    await pay(simulator, session.id);
    await receiver.waitFor(start + 2);
    assert.equal(refused.size, 1);
    const [invoiceEvent] = refused;
    assert.deepEqual(await undelivered(stripe), [invoiceEvent]);
    const listed = await stripe.events.retrieve(invoiceEvent!);
    assert.equal(listed.pending_webhooks, 1);

    await receiver.waitFor(start + 3, 5_000);
    assert.equal(receiver.events.at(-1)!.id, invoiceEvent);
    assert.deepEqual(await undeliveredAfterAnswers(stripe), []);
    assert.equal((await stripe.events.retrieve(invoiceEvent!)).pending_webhooks, 0);
    receiver.answer = () => 200;
  });

  test('a connection that is refused is retried too', async () => {
    const down = createServer();
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    const port = (down.address() as AddressInfo).port;
    await new Promise<void>((resolve) => down.close(() => resolve()));
    target = `http://127.0.0.1:${port}/nobody-home`;
    const { session } = await openCheckout(stripe, 'refused-user');
    await pay(simulator, session.id);
    assert.equal((await undelivered(stripe)).length, 3);
    const start = receiver.events.length;
    target = receiver.url;
    await receiver.waitFor(start + 3, 5_000);
    // Each retry is due on its own event's backoff, as at Stripe, which keeps no order among them.
    assert.deepEqual(
      receiver.events
        .slice(start)
        .map((e) => e.type)
        .sort(),
      ['checkout.session.completed', 'customer.subscription.created', 'invoice.paid'],
    );
    assert.deepEqual(await undeliveredAfterAnswers(stripe), []);
  });

  test('while the webhook URL is unknown, events wait, then go out in order', async () => {
    target = null;
    const { customer, session } = await openCheckout(stripe, 'waiting-user');
    await pay(simulator, session.id); // answers once each event had its first delivery attempt
    assert.equal((await undelivered(stripe)).length, 3);
    const start = receiver.events.length;
    target = receiver.url;
    await receiver.waitFor(start + 3, 5_000);
    const types = receiver.events.slice(start).map((e) => e.type);
    assert.deepEqual(types, [
      'checkout.session.completed',
      'customer.subscription.created',
      'invoice.paid',
    ]);
    assert.equal((receiver.events.at(-1)!.data.object as Stripe.Invoice).customer, customer.id);
  });

  test('the events list filters by type, with a wildcard', async () => {
    const invoices = await stripe.events.list({ type: 'invoice.*', limit: 100 });
    assert.ok(invoices.data.length >= 3);
    assert.ok(invoices.data.every((e) => e.type.startsWith('invoice.')));
    const exact = await stripe.events.list({ type: 'checkout.session.completed', limit: 100 });
    assert.ok(exact.data.every((e) => e.type === 'checkout.session.completed'));
    const created = exact.data.map((e) => e.created);
    assert.deepEqual(
      created,
      [...created].sort((a, b) => b - a),
    );
  });
});

describe(`webhook delivery timeout (${databaseLabel})`, onceInTheSuite, () => {
  test('an endpoint that does not answer in time counts as a failed attempt and is retried', async () => {
    const database = await openTestDb();
    const hanging = createServer(() => {}); // reads the request, never answers
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/`;
    const delivery = createDelivery({
      db: database.db,
      webhookUrl: () => url,
      secret: 'whsec_t',
      retryDelaysMs: [60_000],
      log: () => {},
      timeoutMs: 200,
    });
    try {
      await ensureSchema(database.db);
      const event = await insertEvent(
        database.db,
        {
          type: 'invoice.paid',
          object: { id: 'in_timeout', object: 'invoice' },
          trigger: AUTOMATIC,
        },
        delivery.leaseMs,
      );
      const started = Date.now();
      await delivery.dispatch([event]);
      assert.ok(Date.now() - started < 2_000);
      const [row] = await database.db.query<{
        attempts: number;
        delivered_at: string | null;
        next_attempt_at: number;
        last_response: string;
      }>(
        'SELECT attempts, delivered_at, next_attempt_at::float8 AS next_attempt_at, last_response FROM sim_events WHERE id = $1',
        [event.id],
      );
      assert.equal(row!.attempts, 1);
      assert.equal(row!.delivered_at, null);
      assert.match(row!.last_response, /no answer/);
      assert.ok(row!.next_attempt_at > Date.now() + 50_000);
    } finally {
      await delivery.close();
      hanging.closeAllConnections();
      await new Promise<void>((resolve) => hanging.close(() => resolve()));
      await database.close();
    }
  });
});
