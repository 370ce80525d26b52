// One trial per subject, ever, even with a second trial session at the provider (left open by an
// earlier release, or whose expiry failed): when the subject gets a subscription its other
// sessions are expired at the provider, so they can no longer be paid; and a second trial paid
// anyway (both sessions paid before either event arrived) is cancelled at once, the first kept.
// With BILLING_TRIAL_DAYS=14 and BILLING_TRIAL_REQUIRES_CARD=false, on the embedded simulator.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checkoutSessionParams } from '../../src/adapters/payments/stripe-payments.ts';
import { replayUndeliveredEvents } from '../../src/domain/webhooks/replay.ts';
import { bearer, buildTestApp, deliverWebhooks, profileId, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/browser.ts';
import { checkoutUrl, sessionId, TRIAL_WITHOUT_CARD } from '../helpers/checkout.ts';
import { databaseLabel } from '../helpers/database.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';

const APP = 'https://app.example.test';

describe(`one trial ever, whatever sessions are open (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ APP_URL: APP, ...TRIAL_WITHOUT_CARD });
  });
  after(() => t.close());

  /** Our checkout: a trial session, recorded as the subject's open one. */
  const checkout = async (sub: string) => sessionId(await checkoutUrl(t, sub));
  /** Another trial session of the user's, open at the provider and stored as replaced, not yet expired. */
  async function leftOpen(sub: string): Promise<string> {
    const id = await profileId(t, sub);
    const [user] = await t.composition.db.query<{ payments_customer_id: string }>(
      'SELECT payments_customer_id FROM users WHERE id = $1',
      [id],
    );
    const offer = {
      trialDays: 14,
      trialRequiresCard: false,
      allowPromotionCodes: false,
      automaticTax: false,
    };
    const session = await simulatorClient(t).checkout.sessions.create(
      checkoutSessionParams({
        customerId: user!.payments_customer_id,
        owner: { type: 'user', id },
        priceId: 'price_sim_pro',
        quantity: 1,
        successUrl: `${APP}/other-tab`,
        cancelUrl: `${APP}/other-tab`,
        offer,
      }),
    );
    await t.composition.store.checkoutSessions.insert(
      {
        id: session.id,
        owner: { type: 'user', id },
        url: session.url!,
        priceId: 'price_sim_pro',
        quantity: 1,
        successUrl: `${APP}/other-tab`,
        cancelUrl: `${APP}/other-tab`,
        trialDays: 14,
        expiresAt: new Date(session.expires_at * 1000),
      },
      'replaced',
    );
    return session.id;
  }
  const pay = async (sessionId: string) =>
    (
      await fetch(`${t.composition.simulatorUrl}/checkout/${sessionId}/pay`, {
        method: 'POST',
        redirect: 'manual',
      })
    ).status;
  const subscriptionOf = async (sessionId: string) =>
    String((await simulatorClient(t).checkout.sessions.retrieve(sessionId)).subscription);

  test('both trial sessions paid before any event arrives: the later subscription is cancelled at once', async () => {
    const ours = await checkout('paid-twice');
    const other = await leftOpen('paid-twice');
    assert.deepEqual([await pay(other), await pay(ours)], [303, 303]);
    await replayUndeliveredEvents(t.composition.payments, t.composition.services.webhooks);
    const stripe = simulatorClient(t);
    const statuses = await Promise.all(
      [ours, other].map(
        async (s) => (await stripe.subscriptions.retrieve(await subscriptionOf(s))).status,
      ),
    );
    assert.deepEqual([...statuses].sort(), ['canceled', 'trialing']);
    await replayUndeliveredEvents(t.composition.payments, t.composition.services.webhooks);
    const summary = (
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/billing/subscription',
        headers: bearer(await t.token('paid-twice')),
      })
    ).json();
    assert.deepEqual([summary.tier, summary.subscription?.status], ['pro', 'trialing']);
  });

  test("the subject's other trial session is expired at the provider once it has a subscription", async () => {
    await deliverWebhooks(t);
    const ours = await checkout('other-tab');
    const other = await leftOpen('other-tab');
    assert.equal(await pay(ours), 303);
    const stripe = simulatorClient(t);
    await until(
      async () => (await stripe.checkout.sessions.retrieve(other)).status,
      (status) => status === 'expired',
    );
    assert.notEqual(await pay(other), 303);
    const [row] = await t.composition.db.query<{ status: string }>(
      'SELECT status FROM checkout_sessions WHERE id = $1',
      [other],
    );
    assert.equal(row!.status, 'expired');
  });
});
