// Thin events: with the endpoint's payload set to thin, each event goes out as a v2 notification
// (`v1.<type>`, `related_object`, no snapshot) signed with the destination's own secret, and the
// SDK's own parser accepts it; what the SDK then fetches (the related object, the event itself,
// the snapshot event) the simulator serves. The switch at run time changes the next deliveries.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import type { PaymentsSimulator } from '../src/index.ts';
import {
  API_KEY,
  control,
  databaseLabel,
  openCheckout,
  openTestDb,
  pay,
  sdk,
  startSimulator,
  type TestDb,
  onceInTheSuite,
} from './harness.ts';

const THIN_SECRET = 'whsec_thin_destination';

interface Delivery {
  body: string;
  signature: string;
}

async function startRawReceiver(): Promise<{
  url: string;
  got: Delivery[];
  close(): Promise<void>;
}> {
  const got: Delivery[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      got.push({
        body: Buffer.concat(chunks).toString('utf8'),
        signature: String(request.headers['stripe-signature']),
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.keepAliveTimeout = 100;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe(`thin events (${databaseLabel})`, onceInTheSuite, () => {
  let database: TestDb;
  let receiver: Awaited<ReturnType<typeof startRawReceiver>>;
  let simulator: PaymentsSimulator;
  let stripe: Stripe;
  before(async () => {
    database = await openTestDb();
    receiver = await startRawReceiver();
    simulator = await startSimulator(database.db, {
      webhookUrl: () => receiver.url,
      webhookPayload: 'thin',
      thinWebhookSecret: THIN_SECRET,
    });
    stripe = sdk(simulator);
  });
  after(async () => {
    await simulator.close();
    await receiver.close();
    await database.close();
  });

  const notifications = (from: number) =>
    receiver.got
      .slice(from)
      .map((d) => stripe.parseEventNotification(d.body, d.signature, THIN_SECRET));

  test('a paid checkout sends v1.* notifications, signed with the destination secret, that the SDK parses', async () => {
    const { session } = await openCheckout(stripe, 'thin-user');
    const start = receiver.got.length;
    await pay(simulator, session.id);
    const parsed = notifications(start);
    assert.deepEqual(
      parsed.map((n) => n.type),
      ['v1.checkout.session.completed', 'v1.customer.subscription.created', 'v1.invoice.paid'],
    );
    for (const [index, notification] of parsed.entries()) {
      const raw = JSON.parse(receiver.got[start + index]!.body) as Record<string, unknown>;
      assert.equal(raw.object, 'v2.core.event');
      assert.equal('data' in raw, false, 'a thin event carries no snapshot');
      assert.match(notification.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.match(notification.snapshot_event!, /^evt_/);
    }
    const created = parsed[1]!;
    assert.ok(created.type === 'v1.customer.subscription.created');
    assert.equal(created.related_object.type, 'subscription');
    assert.equal(created.related_object.url, `/v1/subscriptions/${created.related_object.id}`);
    // The SDK's own fetches, against the simulator.
    const subscription = await created.fetchRelatedObject();
    assert.equal(subscription.object, 'subscription');
    assert.equal(subscription.status, 'active');
    const event = await created.fetchEvent();
    assert.equal(event.id, created.id);
    assert.equal(event.type, 'v1.customer.subscription.created');
    const snapshot = await stripe.events.retrieve(created.snapshot_event!);
    assert.equal(snapshot.type, 'customer.subscription.created');
    assert.equal((snapshot.data.object as Stripe.Subscription).id, subscription.id);
    // A snapshot's signature does not verify a thin delivery: the destination has its own secret.
    assert.throws(() =>
      stripe.webhooks.signature!.verifyHeader(
        receiver.got[start]!.body,
        receiver.got[start]!.signature,
        'whsec_local_simulator',
      ),
    );
  });

  test('switching the payload at run time changes the next deliveries; a resend keeps the id', async () => {
    const { session } = await openCheckout(stripe, 'switch-user');
    await pay(simulator, session.id);
    const subscriptionId = (await stripe.checkout.sessions.retrieve(session.id))
      .subscription as string;
    const post = (form: string) =>
      fetch(`${simulator.url}/_sim/settings`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${API_KEY}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: form,
      });
    assert.equal((await post('webhook_payload=snapshot')).status, 200);
    try {
      let start = receiver.got.length;
      await control(simulator, subscriptionId, 'cancel-at-period-end');
      const snapshot = JSON.parse(receiver.got[start]!.body) as Stripe.Event;
      assert.equal(snapshot.object, 'event');
      assert.equal(snapshot.type, 'customer.subscription.updated');
      stripe.webhooks.constructEvent(
        receiver.got[start]!.body,
        receiver.got[start]!.signature,
        'whsec_local_simulator',
      );

      assert.equal((await post('webhook_payload=thin')).status, 200);
      start = receiver.got.length;
      await control(simulator, subscriptionId, 'resume-at-period-end');
      const [thin] = notifications(start);
      assert.equal(thin!.type, 'v1.customer.subscription.updated');
      // Resent from the dashboard: the same notification id.
      const again = await fetch(
        `${simulator.url}/dashboard/events/${thin!.snapshot_event}/resend`,
        {
          method: 'POST',
          redirect: 'manual',
        },
      );
      assert.equal(again.status, 303);
      assert.equal(notifications(start + 1)[0]!.id, thin!.id);
      assert.equal((await post('webhook_payload=sideways')).status, 400);
    } finally {
      await post('webhook_payload=thin');
    }
  });

  test('GET /v2/core/events/:id knows only the notifications of events it emitted', async () => {
    await assert.rejects(stripe.v2.core.events.retrieve('evt_thin_nosuch'), /No such event/);
    await assert.rejects(stripe.v2.core.events.retrieve('evt_123'), /No such event/);
  });
});
