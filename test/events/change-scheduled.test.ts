// `change.scheduled`: a downgrade the portal schedules for the period's end is told once, in the
// transaction that stores it, with the pending change as GET /billing/subscription says it; the
// schedule's event delivered again (under a new id, as a retry of the provider would not be) finds
// nothing new to tell, and keeping the current plan tells nothing either. Delivered signed to a
// real HTTP receiver that verifies with the `standardwebhooks` package.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import { createStripeClient } from '../../src/adapters/payments/stripe-client.ts';
import { bearer, buildTestApp, deliverWebhooks, type TestApp } from '../helpers/app.ts';
import { startAppReceiver, type AppReceiver } from '../helpers/app-receiver.ts';
import { until } from '../helpers/browser.ts';
import { databaseLabel } from '../helpers/database.ts';
import { deliver, eventOf } from '../helpers/stripe-fixtures.ts';

describe(`change.scheduled (${databaseLabel})`, () => {
  let t: TestApp;
  let receiver: AppReceiver;
  let stripe: Stripe;
  before(async () => {
    receiver = await startAppReceiver();
    t = await buildTestApp({
      BILLING_DEFAULT_PLAN: 'team',
      APP_WEBHOOK_URL: receiver.url,
      APP_WEBHOOK_SECRET: receiver.secret,
    });
    await deliverWebhooks(t);
    stripe = createStripeClient(t.config.payments.apiKey, t.composition.simulatorUrl);
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  const post = async (sub: string, path: string) =>
    (
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/billing/${path}`,
        headers: bearer(await t.token(sub)),
        payload: {},
      })
    ).json() as { url: string };
  const tier = async (sub: string) =>
    (
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/billing/subscription',
        headers: bearer(await t.token(sub)),
      })
    ).json<{ tier: string }>().tier;
  async function inPortal(sub: string, action: string, fields: Record<string, string>) {
    const { url } = await post(sub, 'portal');
    const response = await fetch(`${url}/${action}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    assert.equal(response.status, 303);
  }
  const scheduled = () =>
    t.composition.db.query<{ id: string; body: string }>(
      "SELECT id, body FROM outbound_events WHERE type = 'change.scheduled' ORDER BY seq",
    );

  test('a downgrade is told once with its plan, interval and date; a redelivery and keeping the plan tell nothing', async () => {
    const { url } = await post('scheduler', 'checkout');
    await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    assert.equal(
      await until(
        () => tier('scheduler'),
        (at) => at === 'team',
      ),
      'team',
    );
    const [subscription] = (await stripe.subscriptions.list({ limit: 1 })).data;
    const periodEnd = subscription!.items.data[0]!.current_period_end;
    assert.deepEqual(await scheduled(), []);

    await inPortal('scheduler', 'switch', {
      subscription: subscription!.id,
      price: 'price_sim_pro',
    });
    const [told, ...more] = await scheduled();
    assert.deepEqual(more, []);
    const pendingChange = {
      plan: 'pro',
      interval: 'month',
      effective_at: new Date(periodEnd * 1000).toISOString(),
    };
    assert.deepEqual(JSON.parse(told!.body).data.pending_change, pendingChange);
    assert.equal(await tier('scheduler'), 'team', 'the tier waits for the period end');

    const schedule = await stripe.subscriptionSchedules.retrieve(
      String((await stripe.subscriptions.retrieve(subscription!.id)).schedule),
    );
    const again = eventOf('subscription_schedule.updated', schedule, {
      created: schedule.created + 1,
    });
    assert.equal((await deliver(t.app, again)).statusCode, 200);
    await inPortal('scheduler', 'keep-plan', { subscription: subscription!.id });
    assert.deepEqual(
      (await scheduled()).map(({ id }) => id),
      [told!.id],
    );

    const arrived = await until(
      async () => {
        await t.composition.jobs.deliveries!.deliverDue();
        return receiver.arrivals.find((arrival) => arrival.id === told!.id);
      },
      (arrival) => arrival !== undefined,
    );
    assert.equal(receiver.refused, 0);
    assert.equal(arrived!.payload.type, 'change.scheduled');
    assert.deepEqual(arrived!.payload.data.pending_change, pendingChange);
    assert.equal(arrived!.payload.data.subject.idp_id, 'scheduler');
  });
});
