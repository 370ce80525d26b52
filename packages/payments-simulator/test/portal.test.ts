// The simulator's billing portal: POST /v1/billing_portal/sessions through the official SDK, then
// the page a person uses. Each button sends, signed, the events Stripe's portal sends: a plan switch
// is customer.subscription.updated with the new item price and previous_attributes, then the
// proration invoice's invoice.created, .finalized and .paid; cancel at period end and renew flip
// cancel_at_period_end; cancel now is customer.subscription.deleted; a new card is
// payment_method.attached, customer.updated and customer.subscription.updated.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Stripe from 'stripe';
import { Documents } from '../src/store.ts';
import {
  databaseLabel,
  openCheckout,
  pay,
  startStack,
  type SimulatorStack,
  noticeAt,
  onceInTheSuite,
} from './harness.ts';
import { markerDelivered } from './marker.ts';

const RETURN_URL = 'https://app.example.test/billing';

describe(`billing portal in the simulator (${databaseLabel})`, onceInTheSuite, () => {
  let stack: SimulatorStack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  async function subscribed(userId: string) {
    const { customer, session } = await openCheckout(stack.stripe, userId);
    await pay(stack.simulator, session.id);
    const subscription = (await stack.stripe.checkout.sessions.retrieve(session.id))
      .subscription as string;
    const portal = await stack.stripe.billingPortal.sessions.create({
      customer: customer.id,
      return_url: RETURN_URL,
    });
    return { customer, subscription, portal };
  }
  /** Presses a portal button as a browser posts its form; resolves with the notice it shows next. */
  async function press(portalUrl: string, action: string, fields: Record<string, string>) {
    const response = await fetch(`${portalUrl}/${action}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    const location = response.headers.get('location') ?? '';
    return {
      status: response.status,
      notice: response.status === 303 ? await noticeAt(location, portalUrl) : '',
    };
  }
  const eventsAfter = (start: number) => stack.receiver.events.slice(start);

  test('the SDK creates a session whose url is the portal page, listing the subscription and the way back', async () => {
    const { customer, portal } = await subscribed('portal-viewer');
    assert.equal(portal.object, 'billing_portal.session');
    assert.equal(portal.customer, customer.id);
    assert.equal(portal.return_url, RETURN_URL);
    assert.match(portal.url, new RegExp(`^${stack.simulator.url}/p/session/bps_`));
    const page = await (await fetch(portal.url)).text();
    assert.match(page, /portal-viewer@example\.com/);
    assert.match(page, /class="plan">Pro</);
    assert.match(page, /Switch to Team \(\$49\.00\/month\)/);
    assert.match(page, /Cancel at period end/);
    assert.match(page, /Visa •••• 4242/);
    assert.match(
      page,
      /href="https:\/\/app\.example\.test\/billing">← Return to app\.example\.test/,
    );
  });

  test('switch plan: customer.subscription.updated with the new price and previous_attributes, then the proration invoice paid', async () => {
    const { subscription, portal } = await subscribed('portal-switcher');
    const start = stack.receiver.events.length;
    const { status, notice } = await press(portal.url, 'switch', {
      subscription,
      price: 'price_sim_team',
    });
    assert.equal(status, 303);
    assert.match(
      notice,
      /Switched to Team \(\$49\.00\/month\)[\s\S]*customer\.subscription\.updated \(delivered\)/,
    );
    await stack.receiver.waitFor(start + 4);
    const [updated, created, finalized, paid] = eventsAfter(start);
    assert.deepEqual(
      eventsAfter(start).map((e) => e.type),
      ['customer.subscription.updated', 'invoice.created', 'invoice.finalized', 'invoice.paid'],
    );
    const after = updated!.data.object as Stripe.Subscription;
    const previous = updated!.data.previous_attributes as Partial<Stripe.Subscription>;
    assert.equal(after.items.data[0]!.price.id, 'price_sim_team');
    assert.equal(previous.items!.data[0]!.price.id, 'price_sim_pro');
    assert.equal(
      after.items.data[0]!.id,
      previous.items!.data[0]!.id,
      'the same item, now at another price',
    );
    assert.equal(after.latest_invoice, (paid!.data.object as Stripe.Invoice).id);
    assert.deepEqual(
      [created, finalized, paid].map((e) => (e!.data.object as Stripe.Invoice).status),
      ['draft', 'open', 'paid'],
    );
    const invoice = paid!.data.object as Stripe.Invoice;
    assert.equal(invoice.billing_reason, 'subscription_update');
    const [credit, charge] = invoice.lines.data;
    assert.ok(
      credit!.amount < 0 && charge!.amount > 0,
      'unused Pro time credited, remaining Team time charged',
    );
    assert.ok(credit!.parent?.subscription_item_details?.proration);
    assert.equal(invoice.total, credit!.amount + charge!.amount);
    assert.equal(
      (await stack.stripe.subscriptions.retrieve(subscription)).items.data[0]!.price.id,
      'price_sim_team',
    );
    assert.match(await (await fetch(portal.url)).text(), /Switch to Pro \(\$15\.00\/month\)/);
  });

  // Stripe's portal, for the pinned API version (flexible billing mode, the default since
  // 2025-09-30.clover), cancels at the period end with cancel_at, leaving cancel_at_period_end false.
  test('cancel at period end sets cancel_at (flag false), renew clears it; cancel now deletes', async () => {
    const { subscription, portal } = await subscribed('portal-canceller');
    const periodEnd = (await stack.stripe.subscriptions.retrieve(subscription)).items.data[0]!
      .current_period_end;
    let start = stack.receiver.events.length;
    assert.match(
      (await press(portal.url, 'cancel-at-period-end', { subscription })).notice,
      /will be canceled at the end of the period/,
    );
    await stack.receiver.waitFor(start + 1);
    let [event] = eventsAfter(start);
    assert.equal(event!.type, 'customer.subscription.updated');
    let object = event!.data.object as Stripe.Subscription;
    assert.equal(object.cancel_at, periodEnd);
    assert.equal(object.cancel_at_period_end, false);
    assert.equal(object.cancellation_details?.reason, 'cancellation_requested');
    assert.deepEqual(
      (event!.data.previous_attributes as Partial<Stripe.Subscription>).cancel_at,
      null,
    );
    assert.match(await (await fetch(portal.url)).text(), /Cancels [\s\S]*Renew subscription/);

    start = stack.receiver.events.length;
    assert.match(
      (await press(portal.url, 'resume-at-period-end', { subscription })).notice,
      /cancellation was withdrawn/,
    );
    await stack.receiver.waitFor(start + 1);
    [event] = eventsAfter(start);
    object = event!.data.object as Stripe.Subscription;
    assert.equal(object.cancel_at, null);
    assert.equal(object.cancel_at_period_end, false);
    assert.deepEqual(
      (event!.data.previous_attributes as Partial<Stripe.Subscription>).cancel_at,
      periodEnd,
    );

    start = stack.receiver.events.length;
    assert.match(
      (await press(portal.url, 'cancel-now', { subscription })).notice,
      /canceled, as of now/,
    );
    await stack.receiver.waitFor(start + 1);
    assert.deepEqual(
      eventsAfter(start).map((e) => [e.type, (e.data.object as Stripe.Subscription).status]),
      [['customer.subscription.deleted', 'canceled']],
    );
    const page = await (await fetch(portal.url)).text();
    assert.match(page, /No active subscription/);
    assert.match(page, /id="card">Visa •••• 4242/, "the checkout's card stays attached");
  });

  test('update card: payment_method.attached, customer.updated, customer.subscription.updated', async () => {
    const { customer, subscription, portal } = await subscribed('portal-card');
    const start = stack.receiver.events.length;
    assert.match(
      (await press(portal.url, 'update-card', { card: '4444' })).notice,
      /Mastercard •••• 4444/,
    );
    await stack.receiver.waitFor(start + 3);
    const [attached, customerUpdated, subscriptionUpdated] = eventsAfter(start);
    assert.deepEqual(
      eventsAfter(start).map((e) => e.type),
      ['payment_method.attached', 'customer.updated', 'customer.subscription.updated'],
    );
    const method = attached!.data.object as Stripe.PaymentMethod;
    assert.equal(method.customer, customer.id);
    assert.equal(method.card?.last4, '4444');
    assert.equal(
      (customerUpdated!.data.object as Stripe.Customer).invoice_settings.default_payment_method,
      method.id,
    );
    assert.equal(
      (subscriptionUpdated!.data.object as Stripe.Subscription).default_payment_method,
      method.id,
    );
    assert.equal(
      (await stack.stripe.subscriptions.retrieve(subscription)).default_payment_method,
      method.id,
    );
    assert.match(await (await fetch(portal.url)).text(), /id="card">Mastercard •••• 4444/);
  });

  test('a session acts on its own customer only, and refuses cross-site posts', async () => {
    const mine = await subscribed('portal-owner');
    const theirs = await subscribed('portal-other');
    const start = stack.receiver.events.length;
    assert.equal(
      (await press(mine.portal.url, 'cancel-now', { subscription: theirs.subscription })).status,
      404,
    );
    const crossSite = await fetch(`${mine.portal.url}/cancel-now`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'sec-fetch-site': 'cross-site',
      },
      body: `subscription=${mine.subscription}`,
    });
    assert.equal(crossSite.status, 403);
    assert.equal((await fetch(`${stack.simulator.url}/p/session/bps_nope`)).status, 404);
    await markerDelivered(stack);
    assert.deepEqual(
      eventsAfter(start).map((e) => e.type),
      ['customer.updated'],
      'no event sent but the marker',
    );
    assert.equal((await stack.stripe.subscriptions.retrieve(theirs.subscription)).status, 'active');
  });

  test('a session an hour old is expired: the page says so, links back and changes nothing', async () => {
    const { subscription, portal } = await subscribed('portal-late');
    const docs = new Documents(stack.database.db);
    const stored = (
      await docs.require<Stripe.BillingPortal.Session>('billing_portal.session', portal.id)
    ).data;
    await docs.save('billing_portal.session', { ...stored, created: stored.created - 3_601 });
    const page = await fetch(portal.url);
    assert.equal(page.status, 410);
    assert.match(await page.text(), /expired[\s\S]*href="https:\/\/app\.example\.test\/billing"/);
    assert.equal((await press(portal.url, 'cancel-now', { subscription })).status, 410);
    assert.equal((await stack.stripe.subscriptions.retrieve(subscription)).status, 'active');
  });

  test('the API refuses what Stripe refuses: no customer, an unknown one, a return_url that is not a URL', async () => {
    const refusal = (params: Stripe.BillingPortal.SessionCreateParams) =>
      stack.stripe.billingPortal.sessions.create(params).then(
        () => null,
        (error: Stripe.errors.StripeError) => [error.statusCode, error.param],
      );
    assert.deepEqual(await refusal({}), [400, 'customer']);
    assert.deepEqual(await refusal({ customer: 'cus_unknown' }), [400, 'customer']);
    const { customer } = await openCheckout(stack.stripe, 'portal-api');
    assert.deepEqual(await refusal({ customer: customer.id, return_url: 'not a url' }), [
      400,
      'return_url',
    ]);
  });
});
