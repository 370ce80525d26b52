// An event the service cannot translate (a subscription whose customer is an Accounts v2 account,
// a shape it does not know, a thin event naming nothing it can read) is acknowledged with 200
// `ignored`, recorded once, its reason kept in webhook_failures and logged at warn: Stripe stops
// redelivering it, and a redelivery is a `duplicate`. A signed body that is no event at all stays
// a 400 and stores nothing.
import assert from 'node:assert/strict';
import { after, before, describe, mock, test } from 'node:test';
import { bearer } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import {
  buildAppWithFaultyProvider,
  PROVIDER_WEBHOOK_SECRET,
  type AppWithFaultyProvider,
} from '../helpers/faulty-provider.ts';
import {
  deliver,
  eventOf,
  invoiceObject,
  signedHeaders,
  subscriptionObject,
} from '../helpers/stripe-fixtures.ts';

describe(`events the service cannot translate (${databaseLabel})`, () => {
  let stack: AppWithFaultyProvider;
  let warnings: ReturnType<typeof mock.method>;
  before(async () => {
    stack = await buildAppWithFaultyProvider();
    warnings = mock.method(stack.t.composition.logger, 'warn');
  });
  after(() => stack.close());

  const db = () => stack.t.composition.db;
  const post = (payload: string) =>
    stack.t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/payments',
      payload,
      headers: signedHeaders(payload, PROVIDER_WEBHOOK_SECRET),
    });
  const failures = (eventId: string) =>
    db().query<{ type: string; error: string }>(
      'SELECT type, error FROM webhook_failures WHERE event_id = $1',
      [eventId],
    );
  const outcome = async (eventId: string) =>
    (
      await db().query<{ outcome: string }>('SELECT outcome FROM webhook_events WHERE id = $1', [
        eventId,
      ])
    )[0]?.outcome;
  const warned = (eventId: string) =>
    warnings.mock.calls.filter(
      (call) =>
        (call.arguments[0] as { event?: string }).event === eventId &&
        call.arguments[1] === 'event the service cannot translate: acknowledged, not applied',
    );

  /** Delivered twice: acknowledged as ignored, then a duplicate; one record, one failure, one warning. */
  async function acknowledgedOnce(payload: string, reason: RegExp): Promise<void> {
    const { id } = JSON.parse(payload) as { id: string };
    const first = await post(payload);
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(first.json(), { status: 'ignored' });
    const again = await post(payload);
    assert.deepEqual(again.json(), { status: 'duplicate' });
    assert.equal(await outcome(id), 'ignored');
    const kept = await failures(id);
    assert.equal(kept.length, 1, 'the reason is kept once');
    assert.match(kept[0]!.error, reason);
    assert.equal(warned(id).length, 1, 'logged at warn once');
    assert.match(String((warned(id)[0]!.arguments[0] as { reason: string }).reason), reason);
  }

  test('a subscription of an Accounts v2 customer (customer null, customer_account set)', async () => {
    const user = (
      await stack.t.app.inject({
        method: 'GET',
        url: '/api/v1/users/me',
        headers: bearer(await stack.t.token('accounts-v2')),
      })
    ).json() as { id: string };
    const subscription = subscriptionObject({
      customer: null as never,
      customer_account: 'acct_1Accountsv2Customer',
      metadata: { user_id: user.id },
    });
    const event = eventOf('customer.subscription.created', subscription);
    await acknowledgedOnce(JSON.stringify(event), /Accounts v2 account acct_1Accountsv2Customer/);
    const [stored] = await db().query('SELECT 1 FROM subscriptions WHERE id = $1', [
      subscription.id,
    ]);
    assert.equal(stored, undefined, 'nothing stored for it');
  });

  test('a subscription object of a shape the service does not know', async () => {
    const event = eventOf('customer.subscription.updated', {
      ...subscriptionObject(),
      status: { paused: true },
    });
    await acknowledgedOnce(
      JSON.stringify(event),
      /subscription\.status must be a non-empty string/,
    );
  });

  test('an invoice whose subscription the provider answers with an Accounts v2 customer: no retry loop', async () => {
    const subscription = subscriptionObject({
      id: 'sub_AccountsV2Answer',
      customer: null as never,
      customer_account: 'acct_1FromTheProvider',
    });
    stack.provider.front.inject('GET', /^\/v1\/subscriptions\/sub_AccountsV2Answer$/, {
      kind: 'reply',
      status: 200,
      body: subscription,
    });
    try {
      const event = eventOf('invoice.payment_failed', invoiceObject(subscription.id, 'cus_x'));
      await acknowledgedOnce(JSON.stringify(event), /Accounts v2 account acct_1FromTheProvider/);
    } finally {
      stack.provider.front.clear();
    }
  });

  test('thin events naming nothing the service can read: no subscription, or an invoice the provider does not know', async () => {
    const thin = (type: string, related: object | null) =>
      JSON.stringify({
        id: `evt_test_${type.replaceAll('.', '_')}_${Date.now()}`,
        object: 'v2.core.event',
        type,
        created: new Date().toISOString(),
        livemode: false,
        related_object: related,
      });
    await acknowledgedOnce(
      thin('v1.customer.subscription.updated', null),
      /names no subscription in related_object/,
    );
    await acknowledgedOnce(
      thin('v1.customer.subscription.deleted', {
        id: 'cus_1',
        type: 'customer',
        url: '/v1/customers/cus_1',
      }),
      /names no subscription/,
    );
    await acknowledgedOnce(
      thin('v1.invoice.paid', {
        id: 'in_NoSuchInvoice',
        type: 'invoice',
        url: '/v1/invoices/in_NoSuchInvoice',
      }),
      /the provider does not know invoice in_NoSuchInvoice/,
    );
  });

  test('a signed body that is not an event at all is still a 400, and stores nothing', async () => {
    const counts = async () =>
      (
        await db().query<{ events: number; failures: number }>(
          'SELECT (SELECT count(*)::int FROM webhook_events) AS events, (SELECT count(*)::int FROM webhook_failures) AS failures',
        )
      )[0];
    const before = await counts();
    for (const body of [
      { hello: 'world' },
      {
        id: 'evt_1',
        object: 'event',
        type: 'invoice.paid',
        created: 'today',
        data: { object: {} },
      },
      { id: 'evt_2', object: 'v2.core.event', created: new Date().toISOString() },
      { id: 'evt_3', object: 'v2.core.event', type: 'v1.invoice.paid', created: 'yesterday' },
      { id: 'evt_4', object: 'v2.core.event', type: 'v1.invoice.paid', created: 1_700_000_000 },
      [1, 2, 3],
    ]) {
      const response = await post(JSON.stringify(body));
      assert.equal(response.statusCode, 400, `${JSON.stringify(body)}: ${response.body}`);
      assert.equal(typeof response.json().detail, 'string');
    }
    assert.deepEqual(await counts(), before);
  });

  test('a thin event of a type the service does not act on is recorded and ignored, with no failure', async () => {
    const payload = JSON.stringify({
      id: 'evt_test_thin_customer_updated',
      object: 'v2.core.event',
      type: 'v1.customer.updated',
      created: new Date().toISOString(),
      livemode: false,
      related_object: { id: 'cus_1', type: 'customer', url: '/v1/customers/cus_1' },
    });
    const response = await post(payload);
    assert.deepEqual(response.json(), { status: 'ignored' });
    assert.equal(await outcome('evt_test_thin_customer_updated'), 'ignored');
    assert.deepEqual(await failures('evt_test_thin_customer_updated'), []);
    assert.deepEqual(
      (await deliver(stack.t.app, JSON.parse(payload), PROVIDER_WEBHOOK_SECRET)).json(),
      { status: 'duplicate' },
    );
  });
});
