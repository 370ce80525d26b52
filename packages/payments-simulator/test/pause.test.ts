// Pausing and resuming (the pinned API version's pause endpoint, and the account setting that
// pauses a subscription whose renewal payment fails): the subscription's state and the events
// Stripe sends, through the SDK, the controls and the dashboard.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Stripe from 'stripe';
import type { PaymentsSimulator } from '../src/index.ts';
import {
  API_KEY,
  control,
  databaseLabel,
  noticeAt,
  openCheckout,
  pay,
  startStack,
  type Receiver,
  type SimulatorStack,
  onceInTheSuite,
} from './harness.ts';

describe(`pause and resume (${databaseLabel})`, onceInTheSuite, () => {
  let stack: SimulatorStack;
  let simulator: PaymentsSimulator;
  let receiver: Receiver;
  let stripe: Stripe;
  before(async () => {
    stack = await startStack();
    ({ simulator, receiver, stripe } = stack);
  });
  after(() => stack.close());

  async function subscribed(userId: string): Promise<Stripe.Subscription> {
    const { session } = await openCheckout(stripe, userId);
    await pay(simulator, session.id);
    return stripe.subscriptions.retrieve(
      (await stripe.checkout.sessions.retrieve(session.id)).subscription as string,
    );
  }
  const since = (start: number) => receiver.events.slice(start);
  const settings = (form: string) =>
    fetch(`${simulator.url}/_sim/settings`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${API_KEY}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: form,
    });

  test('POST /v1/subscriptions/:id/pause: paused (pause_requested), customer.subscription.updated and .paused; it no longer renews', async () => {
    const active = await subscribed('pause-user');
    const start = receiver.events.length;
    const paused = await stripe.subscriptions.pause(active.id, { type: 'subscription' });
    assert.equal(paused.status, 'paused');
    assert.equal(paused.status_details?.paused.subscription.type, 'pause_requested');
    assert.equal(paused.status_details?.paused.type, 'subscription');
    assert.ok(paused.status_details!.paused.transitioned_at >= active.created);
    await receiver.waitFor(start + 2);
    const [updated, pausedEvent] = since(start);
    assert.equal(updated!.type, 'customer.subscription.updated');
    assert.equal(
      (updated!.data.previous_attributes as Partial<Stripe.Subscription>).status,
      'active',
    );
    assert.equal(pausedEvent!.type, 'customer.subscription.paused');
    assert.equal((pausedEvent!.data.object as Stripe.Subscription).status, 'paused');

    const renewed = await control(simulator, active.id, 'renew');
    assert.equal(renewed.status, 400);
    assert.match(renewed.body.error!.message, /paused/);
    await assert.rejects(stripe.subscriptions.pause(active.id), /only a live subscription/);
  });

  test('POST /v1/subscriptions/:id/resume: active, a new period from now paid at once; invoice.paid, .updated, .resumed', async () => {
    const active = await subscribed('resume-user');
    const beforePause = receiver.events.length;
    await stripe.subscriptions.pause(active.id);
    const start = beforePause + 2; // after the pause's own two
    await receiver.waitFor(start);
    const resumed = await stripe.subscriptions.resume(active.id, {
      billing_cycle_anchor: { type: 'now' },
      payment_behavior: 'resume_on_payment_success',
    });
    assert.equal(resumed.status, 'active');
    assert.equal(resumed.status_details, undefined);
    assert.notEqual(resumed.latest_invoice, active.latest_invoice);
    await receiver.waitFor(start + 3);
    assert.deepEqual(
      since(start).map((e) => e.type),
      ['invoice.paid', 'customer.subscription.updated', 'customer.subscription.resumed'],
    );
    const invoice = since(start)[0]!.data.object as Stripe.Invoice;
    assert.equal(invoice.billing_reason, 'subscription_update');
    assert.equal(invoice.status, 'paid');
    await assert.rejects(stripe.subscriptions.resume(active.id), /only a paused subscription/);

    const canceled = await subscribed('resume-canceled');
    await stripe.subscriptions.cancel(canceled.id);
    await assert.rejects(stripe.subscriptions.pause(canceled.id), /canceled/);
  });

  test('with pause on payment failure, a failed renewal pauses (first_payment_failure); paying the invoice resumes', async () => {
    assert.equal((await settings('pause_on_payment_failure=true')).status, 200);
    try {
      const active = await subscribed('auto-pause-user');
      let start = receiver.events.length;
      const failed = await control(simulator, active.id, 'fail-renewal');
      assert.equal(failed.status, 200);
      assert.equal(failed.body.subscription.status, 'paused');
      assert.equal(
        failed.body.subscription.status_details?.paused.subscription.type,
        'first_payment_failure',
      );
      assert.equal(failed.body.invoice!.status, 'open');
      assert.deepEqual(
        since(start).map((e) => e.type),
        ['invoice.payment_failed', 'customer.subscription.updated', 'customer.subscription.paused'],
      );

      start = receiver.events.length;
      const paid = await control(simulator, active.id, 'renew');
      assert.equal(paid.status, 200);
      assert.equal(paid.body.subscription.status, 'active');
      assert.equal(paid.body.invoice!.id, failed.body.invoice!.id);
      assert.equal(paid.body.invoice!.status, 'paid');
      assert.deepEqual(
        since(start).map((e) => e.type),
        ['invoice.paid', 'customer.subscription.updated', 'customer.subscription.resumed'],
      );
    } finally {
      await settings('pause_on_payment_failure=false');
    }
    const pastDue = await subscribed('no-auto-pause');
    assert.equal(
      (await control(simulator, pastDue.id, 'fail-renewal')).body.subscription.status,
      'past_due',
    );
  });

  test('the dashboard pauses and resumes, and switches pausing on payment failure', async () => {
    const active = await subscribed('dashboard-pause');
    const click = (path: string, form = '') =>
      fetch(`${simulator.url}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
      });
    const page = await (await fetch(`${simulator.url}/`)).text();
    assert.match(page, new RegExp(`/dashboard/subscriptions/${active.id}/pause`));
    let response = await click(`/dashboard/subscriptions/${active.id}/pause`);
    assert.equal(response.status, 303);
    assert.match(
      await noticeAt(response.headers.get('location')!, simulator.url),
      /paused: no invoices.*customer\.subscription\.paused \(delivered\)/,
    );
    assert.equal((await stripe.subscriptions.retrieve(active.id)).status, 'paused');
    response = await click(`/dashboard/subscriptions/${active.id}/resume`);
    assert.match(
      await noticeAt(response.headers.get('location')!, simulator.url),
      /active again.*customer\.subscription\.resumed \(delivered\)/,
    );

    response = await click('/dashboard/settings', 'pause_on_payment_failure=true');
    assert.match(
      await noticeAt(response.headers.get('location')!, simulator.url),
      /pauses the subscription/,
    );
    const shown = await fetch(`${simulator.url}/_sim/settings`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    assert.deepEqual(await shown.json(), {
      webhookPayload: 'snapshot',
      pauseOnPaymentFailure: true,
    });
    await click('/dashboard/settings', 'pause_on_payment_failure=false');
  });
});
