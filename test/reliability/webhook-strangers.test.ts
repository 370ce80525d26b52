// Promise: a correctly signed event about someone the service does not know (a user id nobody has,
// a customer nobody linked, an id that is not even a UUID, a subscription the provider does not
// know) is acknowledged with 200, recorded, and logged as a warning naming the object, and
// creates nothing: no user, no subscription, no customer link. And a delivery captured off the
// wire cannot be replayed once the 300 s tolerance has passed, whether or not it was delivered.
// (Stale, future and other-secret signatures on fresh events are in webhook.signature.test.ts;
// a subscription for an unknown customer without a user id is in webhook.events.test.ts.)
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import {
  checkoutSessionObject,
  eventOf,
  invoiceObject,
  signedHeaders,
  subscriptionObject,
  type FixtureEvent,
} from '../helpers/stripe-fixtures.ts';

const SECRET = 'whsec_local_simulator';
const TOLERANCE_MS = 300_000;

describe(`webhook events about strangers, and replays (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const post = (payload: string, headers: Record<string, string>) =>
    t.app.inject({ method: 'POST', url: '/api/v1/webhooks/payments', payload, headers });
  const signed = (event: FixtureEvent) => {
    const payload = JSON.stringify(event);
    return { payload, headers: signedHeaders(payload, SECRET) };
  };
  /** Everything an event could create or change for anybody. */
  const world = async () =>
    (
      await t.composition.db.query<{
        users: number;
        subscriptions: number;
        links: number;
        sessions: number;
      }>(
        `SELECT (SELECT count(*)::int FROM users) AS users, (SELECT count(*)::int FROM subscriptions) AS subscriptions,
                (SELECT count(*)::int FROM users WHERE payments_customer_id IS NOT NULL) AS links,
                (SELECT count(*)::int FROM checkout_sessions WHERE status <> 'open') AS sessions`,
      )
    )[0]!;
  const recorded = async (id: string) =>
    (await t.composition.db.query('SELECT 1 FROM webhook_events WHERE id = $1', [id])).length;

  test('events about an unknown user, customer or subscription: 200, recorded, a warning naming it, nothing created', async (context) => {
    // Somebody real exists, so "nothing created" is not trivially true of an empty database.
    await t.app.inject({
      method: 'GET',
      url: '/api/v1/users/me',
      headers: bearer(await t.token('bystander')),
    });
    const warnings = context.mock.method(t.composition.logger, 'warn');
    const unknownSubscription = subscriptionObject({ metadata: { user_id: randomUUID() } });
    const strangers: [label: string, event: FixtureEvent, names: string][] = [
      (() => {
        const session = checkoutSessionObject({ client_reference_id: randomUUID() });
        return [
          'completed checkout for a user id nobody has',
          eventOf('checkout.session.completed', session),
          session.id,
        ] as [string, FixtureEvent, string];
      })(),
      (() => {
        const session = checkoutSessionObject({
          client_reference_id: "' OR 1=1 --",
          subscription: null,
        });
        return [
          'completed checkout whose user id is not a UUID',
          eventOf('checkout.session.completed', session),
          session.id,
        ] as [string, FixtureEvent, string];
      })(),
      [
        'subscription for a user id nobody has',
        eventOf('customer.subscription.created', unknownSubscription),
        unknownSubscription.id,
      ],
      (() => {
        const subscription = subscriptionObject({
          metadata: { user_id: "'); DELETE FROM users; --" },
        });
        return [
          'subscription whose user id is SQL',
          eventOf('customer.subscription.updated', subscription),
          subscription.id,
        ] as [string, FixtureEvent, string];
      })(),
      (() => {
        const subscription = subscriptionObject();
        return [
          'failed invoice of an unknown customer and subscription',
          eventOf(
            'invoice.payment_failed',
            invoiceObject(subscription.id, String(subscription.customer)),
          ),
          subscription.id,
        ] as [string, FixtureEvent, string];
      })(),
    ];
    for (const [label, event, names] of strangers) {
      const before = await world();
      const logged = warnings.mock.callCount();
      const { payload, headers } = signed(event);
      const response = await post(payload, headers);
      assert.equal(response.statusCode, 200, `${label}: ${response.body}`);
      assert.deepEqual(response.json(), { status: 'processed' }, label);
      assert.equal(await recorded(event.id), 1, `${label}: recorded`);
      assert.deepEqual(await world(), before, `${label}: nothing created`);
      const said = warnings.mock.calls.slice(logged).map((call) => JSON.stringify(call.arguments));
      assert.ok(
        said.some((line) => line.includes(names)),
        `${label}: a warning names ${names}; logged ${JSON.stringify(said)}`,
      );
    }
  });

  test('a captured delivery replayed after the tolerance is refused with 400 and changes nothing, delivered before or not', async (context) => {
    const user = (
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/users/me',
        headers: bearer(await t.token('replayed')),
      })
    ).json() as { id: string };
    const delivered = signed(
      eventOf(
        'customer.subscription.created',
        subscriptionObject({ metadata: { user_id: user.id }, status: 'canceled' }),
      ),
    );
    const intercepted = signed(
      eventOf(
        'customer.subscription.created',
        subscriptionObject({ metadata: { user_id: user.id } }),
      ),
    );
    assert.deepEqual((await post(delivered.payload, delivered.headers)).json(), {
      status: 'processed',
    });

    context.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    context.mock.timers.tick(TOLERANCE_MS + 1_000);
    const before = await world();
    for (const capture of [delivered, intercepted]) {
      const response = await post(capture.payload, capture.headers);
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(typeof response.json().detail, 'string');
    }
    context.mock.timers.reset();
    assert.deepEqual(await world(), before);
    assert.equal(
      await recorded(JSON.parse(intercepted.payload).id),
      0,
      'the intercepted event was not recorded',
    );
    const profile = (
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/users/me',
        headers: bearer(await t.token('replayed')),
      })
    ).json();
    assert.equal(profile.tier, 'free', 'the replayed active subscription bought nothing');
  });
});
