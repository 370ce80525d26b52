// Promise: the webhook answers any body, signed or not, with 200 or 400 and never a 5xx, in the
// contract's shapes; a refused body stores nothing (no event record, no failure record, no user or
// subscription change); and no accepted body can leave a user whose profile then fails to load.
// Bodies without a valid signature are noise, replays or forgeries; signed bodies are events whose
// objects carry values of the wrong type or range, as a provider bug, an API-version mismatch
// between the webhook endpoint and the pinned SDK, or a leaked secret would produce.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import {
  checkoutSessionObject,
  eventOf,
  invoiceObject,
  signedHeaders,
  subscriptionObject,
} from '../helpers/stripe-fixtures.ts';
import { anyJson, anyText, headerValue, RUNS } from '../helpers/arbitraries.ts';

const SECRET = 'whsec_local_simulator';
const now = () => Math.floor(Date.now() / 1000);

const HANDLED = [
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.paid',
  'invoice.payment_failed',
];

/** Fields the handlers read, per object kind, as dotted paths into the event's data.object. */
const FIELDS: Record<string, string[]> = {
  subscription: [
    'id',
    'customer',
    'status',
    'created',
    'cancel_at_period_end',
    'metadata',
    'metadata.user_id',
    'items',
    'items.data',
    'items.data.0',
    'items.data.0.price',
    'items.data.0.price.id',
    'items.data.0.current_period_end',
  ],
  session: ['id', 'customer', 'subscription', 'client_reference_id'],
  invoice: [
    'customer',
    'parent',
    'parent.subscription_details',
    'parent.subscription_details.subscription',
    'subscription',
  ],
};
const kindOf = (type: string) =>
  type.startsWith('customer.subscription.')
    ? 'subscription'
    : type.startsWith('invoice.')
      ? 'invoice'
      : 'session';

const oddValue = fc.oneof(
  anyJson,
  anyText,
  fc.constantFrom(
    null,
    -1,
    0,
    1.5,
    1e15,
    -1e12,
    253_402_300_800,
    '',
    '\u0000',
    'cus_\u0000',
    'on_hold',
    'paused',
    true,
    {},
    [],
    { id: 5 },
    'x'.repeat(300),
  ),
);

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node: unknown = target;
  for (const key of keys.slice(0, -1)) {
    if (node === null || typeof node !== 'object') return;
    node = (node as Record<string, unknown>)[key];
  }
  if (node !== null && typeof node === 'object')
    (node as Record<string, unknown>)[keys.at(-1)!] = value;
}

describe(`hostile webhook bodies (${databaseLabel})`, () => {
  let t: TestApp;
  let users = 0;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const post = (payload: Buffer | string, headers: Record<string, string>) =>
    t.app.inject({ method: 'POST', url: '/api/v1/webhooks/payments', payload, headers });
  const counts = async () =>
    (
      await t.composition.db.query<{
        events: number;
        failures: number;
        users: number;
        subscriptions: number;
      }>(
        `SELECT (SELECT count(*)::int FROM webhook_events) AS events, (SELECT count(*)::int FROM webhook_failures) AS failures,
                (SELECT count(*)::int FROM users) AS users, (SELECT count(*)::int FROM subscriptions) AS subscriptions`,
      )
    )[0]!;

  function assertRefused(response: LightMyRequestResponse) {
    assert.equal(response.statusCode, 400, `${response.statusCode} ${response.body.slice(0, 300)}`);
    assert.equal(typeof response.json().detail, 'string');
  }

  const body = fc.oneof(
    anyText.map((text) => Buffer.from(text)),
    anyJson.map((value) => Buffer.from(JSON.stringify(value))),
    fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
    fc.constant(
      Buffer.from(JSON.stringify(eventOf('customer.subscription.created', subscriptionObject()))),
    ),
  );
  const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
  /** Every way a Stripe-Signature header can fail to vouch for `payload`. */
  const badSignature = (payload: Buffer) =>
    fc.oneof(
      fc.constant<string | undefined>(undefined),
      headerValue,
      fc.tuple(fc.integer(), hex64).map(([time, v1]) => `t=${time},v1=${v1}`),
      fc
        .tuple(
          fc.integer({ min: now() - 300, max: now() + 300 }),
          hex64,
          fc.array(hex64, { maxLength: 2 }),
        )
        .map(([time, v1, more]) =>
          [`t=${time}`, `v1=${v1}`, ...more.map((m) => `v1=${m}`)].join(','),
        ),
      fc
        .constantFrom('whsec_other', 'whsec_local_simulatorx', '')
        .map((secret) => signedHeaders(payload.toString('utf8'), secret)['stripe-signature']!),
      fc
        .oneof(fc.integer({ min: 301, max: 10 ** 9 }), fc.integer({ min: -(10 ** 9), max: -301 }))
        .map(
          (skew) =>
            signedHeaders(payload.toString('utf8'), SECRET, now() + skew)['stripe-signature']!,
        ),
      fc.constant(signedHeaders(`${payload.toString('utf8')} `, SECRET)['stripe-signature']!),
    );

  test('a body without a valid signature (noise, forgery, other secret, stale or future, other body): 400 and nothing stored', async () => {
    await fc.assert(
      fc.asyncProperty(
        body.chain((payload) =>
          fc.tuple(
            fc.constant(payload),
            badSignature(payload),
            fc.constantFrom('application/json', 'text/plain', 'application/octet-stream'),
          ),
        ),
        async ([payload, signature, contentType]) => {
          const before = await counts();
          const response = await post(payload, {
            'content-type': contentType,
            ...(signature === undefined ? {} : { 'stripe-signature': signature }),
          });
          assertRefused(response);
          assert.deepEqual(await counts(), before);
        },
      ),
      { numRuns: RUNS },
    );
  });

  const signedEvent = fc.record({
    type: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...HANDLED) },
      { weight: 1, arbitrary: anyText },
    ),
    id: fc.oneof(
      { weight: 4, arbitrary: fc.stringMatching(/^evt_[A-Za-z0-9]{8,24}$/) },
      { weight: 1, arbitrary: anyText },
    ),
    created: fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: now() - 86_400 * 365, max: now() + 60 }) },
      {
        weight: 1,
        arbitrary: fc.oneof(
          fc.integer(),
          fc.constantFrom(0, -1, 2 ** 31, 253_402_300_800, Number.MAX_SAFE_INTEGER),
        ),
      },
    ),
    mutations: fc.array(
      fc.tuple(fc.constantFrom(...new Set(Object.values(FIELDS).flat())), oddValue),
      { maxLength: 3 },
    ),
  });

  test('a correctly signed event whose fields hold any values: 200 or 400 never 5xx, a 400 stores nothing, and every profile still loads', async () => {
    await fc.assert(
      fc.asyncProperty(signedEvent, async ({ type, id, created, mutations }) => {
        const sub = `webhook-fuzz-${++users}`;
        const token = await t.token(sub);
        const user = (
          await t.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(token) })
        ).json() as { id: string };
        const subscription = subscriptionObject({ metadata: { user_id: user.id } });
        const kind = kindOf(type);
        const object = (kind === 'subscription'
          ? subscription
          : kind === 'invoice'
            ? invoiceObject(subscription.id, String(subscription.customer))
            : checkoutSessionObject({
                client_reference_id: user.id,
                customer: subscription.customer,
                subscription: subscription.id,
              })) as unknown as Record<string, unknown>;
        for (const [path, value] of mutations)
          if (FIELDS[kind]!.includes(path)) setPath(object, path, value);
        const payload = JSON.stringify(eventOf(type, object, { id, created }));

        const before = await counts();
        const response = await post(payload, signedHeaders(payload, SECRET));
        assert.ok(
          [200, 400].includes(response.statusCode),
          `${response.statusCode} ${response.body.slice(0, 300)}`,
        );
        if (response.statusCode === 200)
          assert.ok(
            ['processed', 'duplicate', 'ignored'].includes(response.json().status),
            response.body,
          );
        else {
          assertRefused(response);
          assert.deepEqual(await counts(), before);
        }
        const profile = await t.app.inject({
          method: 'GET',
          url: '/api/v1/users/me',
          headers: bearer(token),
        });
        assert.equal(
          profile.statusCode,
          200,
          `the profile after the event: ${profile.statusCode} ${profile.body.slice(0, 200)}`,
        );
      }),
      { numRuns: RUNS },
    );
  });

  test('a subscription in a status the service does not know (a newer API version) never breaks its user profile', async () => {
    const token = await t.token('future-status');
    const user = (
      await t.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(token) })
    ).json() as { id: string };
    const subscription = subscriptionObject({
      metadata: { user_id: user.id },
      status: 'on_hold' as never,
    });
    const payload = JSON.stringify(eventOf('customer.subscription.updated', subscription));
    const response = await post(payload, signedHeaders(payload, SECRET));
    assert.ok([200, 400].includes(response.statusCode), `${response.statusCode} ${response.body}`);
    const profile = await t.app.inject({
      method: 'GET',
      url: '/api/v1/users/me',
      headers: bearer(token),
    });
    assert.equal(
      profile.statusCode,
      200,
      `GET /users/me after the event answered ${profile.statusCode}`,
    );
    assert.equal(profile.json().tier, 'free', 'a status nobody knows buys no paid tier');
  });

  test('a subscription event rendered in an older API version (period end on the subscription, not its item) is no 5xx loop', async () => {
    const token = await t.token('old-api-version');
    const user = (
      await t.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(token) })
    ).json() as { id: string };
    const current = subscriptionObject({ metadata: { user_id: user.id } }) as unknown as {
      items: { data: Record<string, unknown>[] };
    };
    const item = { ...current.items.data[0]! };
    delete item.current_period_end;
    delete item.current_period_start;
    const older = {
      ...current,
      current_period_end: now() + 30 * 86_400,
      current_period_start: now(),
      items: { ...current.items, data: [item] },
    };
    const payload = JSON.stringify(eventOf('customer.subscription.created', older));
    for (let attempt = 1; attempt <= 2; attempt++) {
      const response = await post(payload, signedHeaders(payload, SECRET));
      assert.ok(
        [200, 400].includes(response.statusCode),
        `delivery ${attempt}: ${response.statusCode} ${response.body}`,
      );
    }
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(token) }))
        .statusCode,
      200,
    );
  });
});
