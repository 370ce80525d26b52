// Events rendered at other API versions than the pinned one: Stripe renders a snapshot event in
// the API version of the endpoint that receives it. Built from Stripe's own published example
// objects (test/fixtures/stripe/, from stripe/openapi) at an older version (2025-02-24.acacia:
// the period on the subscription, `invoice.subscription`) and at the newest published, standing
// for the pinned one (the period on the item, `invoice.parent.subscription_details`), signed and
// delivered to the real service. Each handled event type must apply the same state at both.
// The fixtures are placeholders (inconsistent dates, a plan in currency "currency"); only what a
// test needs is overridden: ids, the customer and the user, the status, the period, the price,
// the cancellation (`cancel_at` follows `cancel_at_period_end`, as Stripe sets it), the invoice's
// subscription reference where that version keeps it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { payWhileUnreachable, tierOf } from '../helpers/cli.ts';
import { databaseLabel } from '../helpers/database.ts';
import {
  buildAppWithFaultyProvider,
  PROVIDER_API_KEY,
  type AppWithFaultyProvider,
} from '../helpers/faulty-provider.ts';
import { deliver, eventOf } from '../helpers/stripe-fixtures.ts';

type Json = Record<string, unknown>;
interface Fixtures {
  'checkout.session': Json;
  subscription: Json;
  invoice: Json;
}

const fixtures = (file: string): Fixtures =>
  JSON.parse(readFileSync(new URL(`../fixtures/stripe/${file}`, import.meta.url), 'utf8'));

const VERSIONS = [
  { apiVersion: '2025-02-24.acacia', fixtures: fixtures('openapi-v1505.json') },
  { apiVersion: '2026-10-28.endive', fixtures: fixtures('openapi-v2436.json') },
] as const;

const copy = <T>(value: T): T => structuredClone(value);

interface Ours {
  userId: string;
  customer: string;
  subscription: string;
  session: string;
}

/** The version's subscription, made ours: the period where that version keeps it. */
function subscriptionAt(
  from: Fixtures,
  ours: Ours,
  state: { status: string; cancelAtPeriodEnd: boolean; periodEnd: number },
): Json {
  const subscription = copy(from.subscription);
  const items = subscription.items as { data: Json[] };
  const item = items.data[0]!;
  Object.assign(subscription, {
    id: ours.subscription,
    customer: ours.customer,
    metadata: { user_id: ours.userId },
    status: state.status,
    cancel_at_period_end: state.cancelAtPeriodEnd,
    cancel_at: state.cancelAtPeriodEnd ? state.periodEnd : null,
  });
  Object.assign(item, { subscription: ours.subscription });
  Object.assign(item.price as Json, { id: 'price_sim_pro' });
  const period = {
    current_period_start: state.periodEnd - 30 * 86_400,
    current_period_end: state.periodEnd,
  };
  if ('current_period_end' in subscription) Object.assign(subscription, period);
  else Object.assign(item, period);
  return subscription;
}

/** The version's invoice, made ours: the subscription referenced where that version keeps it. */
function invoiceAt(from: Fixtures, ours: Ours, status: 'paid' | 'open'): Json {
  const invoice = copy(from.invoice);
  Object.assign(invoice, {
    id: `in_${ours.subscription.slice(4)}_${status}`,
    customer: ours.customer,
    status,
  });
  if ('parent' in invoice)
    invoice.parent = {
      type: 'subscription_details',
      quote_details: null,
      subscription_details: { metadata: null, subscription: ours.subscription },
    };
  else invoice.subscription = ours.subscription;
  return invoice;
}

function sessionAt(from: Fixtures, ours: Ours): Json {
  return Object.assign(copy(from['checkout.session']), {
    id: ours.session,
    client_reference_id: ours.userId,
    customer: ours.customer,
    subscription: ours.subscription,
    mode: 'subscription',
    status: 'complete',
    payment_status: 'paid',
  });
}

describe(`events rendered at an older API version and at the pinned one (${databaseLabel})`, () => {
  let stack: AppWithFaultyProvider;
  const ours: Ours[] = [];
  before(async () => {
    stack = await buildAppWithFaultyProvider();
    // The provider's clock two minutes behind ours: every read is older than the events below,
    // which are dated a few seconds ahead of now, so each applies whatever the machine's pace.
    stack.provider.front.clockOffsetSeconds = -120;
    for (const version of VERSIONS) {
      const sub = `version-${version.apiVersion}`;
      await payWhileUnreachable(stack.t, sub);
      const [user] = await stack.t.composition.db.query<{
        id: string;
        payments_customer_id: string;
      }>('SELECT id, payments_customer_id FROM users WHERE idp_id = $1', [sub]);
      const [subscription] = (
        await stack.direct.subscriptions.list({ customer: user!.payments_customer_id })
      ).data;
      const [session] = (
        await stack.direct.checkout.sessions.list({ customer: user!.payments_customer_id })
      ).data;
      ours.push({
        userId: user!.id,
        customer: user!.payments_customer_id,
        subscription: subscription!.id,
        session: session!.id,
      });
    }
  });
  after(() => stack.close());

  const control = (id: string, action: string) =>
    fetch(`${stack.provider.simulatorUrl}/_sim/subscriptions/${id}/${action}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${PROVIDER_API_KEY}` },
    }).then((response) => assert.equal(response.status, 200));

  /** The state a version's events left, without what differs by nature (ids, the provider's own periods). */
  async function stateOf(index: number) {
    const { subscription, customer } = ours[index]!;
    const [row] = await stack.t.composition.db.query<{
      status: string;
      price_id: string | null;
      cancel_at_period_end: boolean;
      current_period_end: Date | null;
      payment_failed_at: Date | null;
      customer_id: string;
    }>(
      'SELECT status, price_id, cancel_at_period_end, current_period_end, payment_failed_at, customer_id FROM subscriptions WHERE id = $1',
      [subscription],
    );
    if (row === undefined) return null;
    const truth = await stack.direct.subscriptions.retrieve(subscription);
    const providersEnd = truth.items.data[0]!.current_period_end * 1000;
    return {
      status: row.status,
      price: row.price_id,
      cancelAtPeriodEnd: row.cancel_at_period_end,
      periodEnd:
        row.current_period_end?.getTime() === providersEnd
          ? "the provider's"
          : row.current_period_end?.toISOString(),
      paymentFailedAt: row.payment_failed_at?.toISOString() ?? null,
      ownCustomer: row.customer_id === customer,
      tier: await tierOf(stack.t, `version-${VERSIONS[index]!.apiVersion}`),
    };
  }

  const now = Math.floor(Date.now() / 1000);
  const periodEnd = now + 20 * 86_400;
  let step = 0;
  /** Delivers the event each version renders, created at the same second for both; returns both states. */
  async function deliverAtBoth(type: string, render: (from: Fixtures, mine: Ours) => Json) {
    const created = Math.floor(Date.now() / 1000) + 2 + step++;
    for (const [index, version] of VERSIONS.entries()) {
      const event = eventOf(type, render(version.fixtures, ours[index]!), {
        created,
        api_version: version.apiVersion,
      });
      const response = await deliver(stack.t.app, event);
      assert.equal(response.statusCode, 200, `${version.apiVersion}: ${response.body}`);
      assert.deepEqual(response.json(), { status: 'processed' }, version.apiVersion);
    }
    const states = [await stateOf(0), await stateOf(1)];
    assert.deepEqual(states[0], states[1], `${type}: the older rendering left another state`);
    return { created, state: states[1]! };
  }

  test('customer.subscription.created: a subscription first heard of is read, and stored for its user', async () => {
    const { state } = await deliverAtBoth('customer.subscription.created', (from, mine) =>
      subscriptionAt(from, mine, { status: 'active', cancelAtPeriodEnd: false, periodEnd }),
    );
    assert.deepEqual(
      {
        status: state.status,
        price: state.price,
        ownCustomer: state.ownCustomer,
        tier: state.tier,
      },
      { status: 'active', price: 'price_sim_pro', ownCustomer: true, tier: 'pro' },
    );
  });

  test('checkout.session.completed: the session completes and the subscription is read again', async () => {
    const { state } = await deliverAtBoth('checkout.session.completed', sessionAt);
    assert.equal(state.status, 'active');
    for (const mine of ours) {
      const [session] = await stack.t.composition.db.query<{ status: string }>(
        'SELECT status FROM checkout_sessions WHERE id = $1',
        [mine.session],
      );
      assert.equal(session!.status, 'complete');
    }
  });

  test('customer.subscription.updated: the carried snapshot, its period read where that version keeps it', async () => {
    const { state } = await deliverAtBoth('customer.subscription.updated', (from, mine) =>
      subscriptionAt(from, mine, { status: 'active', cancelAtPeriodEnd: true, periodEnd }),
    );
    assert.deepEqual(
      { cancelAtPeriodEnd: state.cancelAtPeriodEnd, periodEnd: state.periodEnd, tier: state.tier },
      { cancelAtPeriodEnd: true, periodEnd: new Date(periodEnd * 1000).toISOString(), tier: 'pro' },
    );
  });

  test('invoice.payment_failed: the invoice names its subscription where that version keeps it, which is read', async () => {
    for (const mine of ours) {
      await control(mine.subscription, 'resume-at-period-end');
      await control(mine.subscription, 'fail-renewal');
    }
    const { created, state } = await deliverAtBoth('invoice.payment_failed', (from, mine) =>
      invoiceAt(from, mine, 'open'),
    );
    assert.deepEqual(
      {
        status: state.status,
        cancelAtPeriodEnd: state.cancelAtPeriodEnd,
        periodEnd: state.periodEnd,
        paymentFailedAt: state.paymentFailedAt,
        tier: state.tier,
      },
      {
        status: 'past_due',
        cancelAtPeriodEnd: false,
        periodEnd: "the provider's",
        paymentFailedAt: new Date(created * 1000).toISOString(),
        tier: 'pro',
      },
    );
  });

  test('invoice.paid: read again, active', async () => {
    for (const mine of ours) await control(mine.subscription, 'renew');
    const { state } = await deliverAtBoth('invoice.paid', (from, mine) =>
      invoiceAt(from, mine, 'paid'),
    );
    assert.deepEqual(
      { status: state.status, paymentFailedAt: state.paymentFailedAt, tier: state.tier },
      { status: 'active', paymentFailedAt: null, tier: 'pro' },
    );
  });

  test('customer.subscription.deleted: canceled, the free tier', async () => {
    const { state } = await deliverAtBoth('customer.subscription.deleted', (from, mine) =>
      subscriptionAt(from, mine, { status: 'canceled', cancelAtPeriodEnd: false, periodEnd }),
    );
    assert.deepEqual(
      { status: state.status, tier: state.tier },
      { status: 'canceled', tier: 'free' },
    );
  });
});
