// One-time payments as a person and an event destination meet them: the hosted page of a checkout
// in payment mode (the price once, a card or a bank debit), the dashboard's one-time payments
// (a bank debit settled or failed, a refund of an amount, all that is left by default, refused
// across sites), thin notifications of the new event types whose related objects the SDK fetches,
// and a one-time price refused wherever a subscription's price goes.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import {
  databaseLabel,
  noticeAt,
  pay,
  startStack,
  type SimulatorStack,
  onceInTheSuite,
} from './harness.ts';
import { decide, PACKS, packCheckout } from './credit-packs.ts';

describe(`one-time payments on the pages (${databaseLabel})`, onceInTheSuite, () => {
  let stack: SimulatorStack;
  before(async () => {
    stack = await startStack({ oneTimePrices: PACKS });
  });
  after(() => stack.close());

  const page = async (path: string) => (await fetch(`${stack.simulator.url}${path}`)).text();
  /** Posts a dashboard form as a browser does and returns the notice of the page it lands on. */
  async function click(path: string, form = '', headers: Record<string, string> = {}) {
    const response = await fetch(`${stack.simulator.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: form,
    });
    if (response.status !== 303) return { status: response.status, notice: '' };
    const notice = await noticeAt(response.headers.get('location')!, stack.simulator.url);
    return { status: response.status, notice };
  }
  const rowOf = (html: string, id: string) =>
    html.split('<tr').find((row) => row.includes(`data-payment="${id}"`)) ?? '';
  const intentOf = async (sessionId: string) =>
    (await stack.stripe.checkout.sessions.retrieve(sessionId)).payment_intent as string;

  test('the page sells the pack once, by card or bank debit; opened again it says what happened', async () => {
    const { session } = await packCheckout(stack.stripe, 'org-page', 'price_sim_credits_large');
    const open = await page(`/checkout/${session.id}`);
    assert.match(open, /<title>Pay for Credits: large<\/title>/);
    assert.match(open, /<div class="price">\$35\.00<\/div>/);
    assert.doesNotMatch(open, /per month/);
    assert.match(open, /name="payment_method_type" value="card">Pay \$35\.00</);
    assert.match(
      open,
      /value="us_bank_account"[^>]*>Pay \$35\.00 by bank debit \(settles later\)</,
    );
    await pay(stack.simulator, session.id, 'payment_method_type=us_bank_account');
    const intent = await intentOf(session.id);
    assert.match(
      await page(`/checkout/${session.id}`),
      new RegExp(`The bank debit of \\$35\\.00 \\(<code>${intent}</code>\\) is processing`),
    );
  });

  test('the dashboard settles or fails a bank debit, and says which events went out', async () => {
    const settled = await packCheckout(stack.stripe, 'org-dash-settle');
    const failed = await packCheckout(stack.stripe, 'org-dash-fail');
    for (const { session } of [settled, failed])
      await pay(stack.simulator, session.id, 'payment_method_type=us_bank_account');
    const [good, bad] = [await intentOf(settled.session.id), await intentOf(failed.session.id)];
    const row = rowOf(await page('/'), good);
    assert.match(row, /org-dash-settle@example\.com/);
    assert.match(row, /processing/);
    assert.match(row, /Bank debit settles/);
    const yes = await click(`/dashboard/payment_intents/${good}/settle`);
    assert.match(yes.notice, /^The bank debit of \$9\.00 settled: the payment succeeded\./);
    assert.match(
      yes.notice,
      /charge\.succeeded \(delivered\), payment_intent\.succeeded \(delivered\), checkout\.session\.async_payment_succeeded \(delivered\)/,
    );
    const no = await click(`/dashboard/payment_intents/${bad}/fail`);
    assert.match(no.notice, /^The bank returned the debit of \$9\.00/);
    assert.match(no.notice, /checkout\.session\.async_payment_failed \(delivered\)/);
    assert.match(rowOf(await page('/'), bad), /failed/);
  });

  test('the dashboard refunds an amount, all that is left by default; too much is refused', async () => {
    const { session } = await packCheckout(stack.stripe, 'org-dash-refund');
    await pay(stack.simulator, session.id);
    const intent = await stack.stripe.paymentIntents.retrieve(await intentOf(session.id));
    const charge = intent.latest_charge as string;
    assert.match(rowOf(await page('/'), intent.id), /name="amount" value="9\.00"/);
    const part = await click(`/dashboard/charges/${charge}/refund`, 'amount=3.00');
    assert.match(part.notice, new RegExp(`^Refunded \\$3\\.00 of ${charge}\\.`));
    assert.match(part.notice, /refund\.created \(delivered\), charge\.refunded \(delivered\)/);
    assert.match(rowOf(await page('/'), intent.id), /\$3\.00 refunded[\s\S]*value="6\.00"/);
    const over = await click(`/dashboard/charges/${charge}/refund`, 'amount=7');
    assert.equal(
      over.notice,
      'Refund amount ($7.00) is greater than unrefunded amount on charge ($6.00)',
    );
    const bad = await click(`/dashboard/charges/${charge}/refund`, 'amount=lots');
    assert.match(bad.notice, /in dollars, such as 3\.00/);
    const rest = await click(`/dashboard/charges/${charge}/refund`);
    assert.match(rest.notice, /^Refunded \$6\.00/);
    assert.equal((await stack.stripe.charges.retrieve(charge)).refunded, true);
    assert.match(rowOf(await page('/'), intent.id), /refunded<\/span><\/td><td>—/);
  });

  test('a refund posted from another site is refused and refunds nothing', async () => {
    const { session } = await packCheckout(stack.stripe, 'org-csrf');
    await pay(stack.simulator, session.id);
    const intent = await stack.stripe.paymentIntents.retrieve(await intentOf(session.id));
    const charge = intent.latest_charge as string;
    const crossSite: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'https://evil.example' },
    ];
    for (const headers of crossSite)
      assert.equal((await click(`/dashboard/charges/${charge}/refund`, '', headers)).status, 403);
    assert.equal(
      (
        await click(`/dashboard/payment_intents/${intent.id}/fail`, '', {
          'sec-fetch-site': 'cross-site',
        })
      ).status,
      403,
    );
    assert.equal((await stack.stripe.charges.retrieve(charge)).amount_refunded, 0);
  });

  test("a one-time price is never a subscription's: checkout, update, schedule, the portal", async () => {
    const customer = await stack.stripe.customers.create({ email: 'plans@example.com' });
    const oneTimeOnly = {
      message:
        'The price specified is set to `type=one_time` but this field only accepts prices with `type=recurring`.',
    };
    const subscription = await stack.stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: 'price_sim_pro' }],
      trial_period_days: 7,
    });
    await assert.rejects(
      stack.stripe.subscriptions.update(subscription.id, {
        items: [{ id: subscription.items.data[0]!.id, price: 'price_sim_credits_small' }],
      }),
      { ...oneTimeOnly, param: 'items[0][price]' },
    );
    const schedule = await stack.stripe.subscriptionSchedules.create({
      from_subscription: subscription.id,
    });
    const current = schedule.phases[0]!;
    await assert.rejects(
      stack.stripe.subscriptionSchedules.update(schedule.id, {
        phases: [
          {
            start_date: current.start_date,
            end_date: current.end_date,
            items: [{ price: 'price_sim_pro', quantity: 1 }],
          },
          {
            items: [{ price: 'price_sim_credits_small', quantity: 1 }],
            duration: { interval: 'month' },
          },
        ],
      }),
      { ...oneTimeOnly, param: 'phases[1][items][0][price]' },
    );
    const portal = await stack.stripe.billingPortal.configurations.list({ is_default: true });
    const products = portal.data[0]!.features.subscription_update.products ?? [];
    assert.deepEqual(products.map((p) => p.product).sort(), ['prod_sim_pro', 'prod_sim_team']);
  });
});

type WithObject = Extract<Stripe.V2.Core.EventNotification, { related_object: unknown }>;

describe(`one-time payments as thin events (${databaseLabel})`, onceInTheSuite, () => {
  let stack: SimulatorStack;
  const bodies: { body: string; signature: string }[] = [];
  let close: () => Promise<void>;
  before(async () => {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const signature = String(request.headers['stripe-signature']);
        bodies.push({ body: Buffer.concat(chunks).toString('utf8'), signature });
        response.writeHead(200).end('{}');
      });
    });
    server.keepAliveTimeout = 100;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/thin`;
    close = () => new Promise<void>((resolve) => server.close(() => resolve()));
    stack = await startStack({
      oneTimePrices: PACKS,
      webhookPayload: 'thin',
      webhookUrl: () => url,
    });
  });
  after(async () => {
    await stack.close();
    await close();
  });

  async function notifications(from: number, count: number) {
    const until = Date.now() + 5_000;
    while (bodies.length < from + count && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 10));
    // Each of these types names its object (a related_object the SDK can fetch).
    return bodies
      .slice(from)
      .map(
        (d) =>
          stack.stripe.parseEventNotification(
            d.body,
            d.signature,
            'whsec_local_simulator',
          ) as WithObject,
      );
  }

  test('a bank debit settled and refunded: v1.* notifications whose related objects the SDK fetches', async () => {
    const { session } = await packCheckout(stack.stripe, 'org-thin');
    let start = bodies.length;
    await pay(stack.simulator, session.id, 'payment_method_type=us_bank_account');
    let parsed = await notifications(start, 4);
    assert.deepEqual(
      parsed.map((n) => n.type),
      [
        'v1.payment_intent.created',
        'v1.charge.pending',
        'v1.payment_intent.processing',
        'v1.checkout.session.completed',
      ],
    );
    const intent = (await parsed[2]!.fetchRelatedObject()) as unknown as Stripe.PaymentIntent;
    assert.equal(intent.object, 'payment_intent');
    assert.equal(intent.status, 'processing');

    start = bodies.length;
    assert.equal((await decide(stack.simulator.url, intent.id, 'settle')).status, 200);
    parsed = await notifications(start, 3);
    assert.deepEqual(
      parsed.map((n) => n.type),
      [
        'v1.charge.succeeded',
        'v1.payment_intent.succeeded',
        'v1.checkout.session.async_payment_succeeded',
      ],
    );
    assert.deepEqual(parsed[0]!.related_object, {
      id: intent.latest_charge,
      type: 'charge',
      url: `/v1/charges/${String(intent.latest_charge)}`,
    });
    const paid = (await parsed[2]!.fetchRelatedObject()) as unknown as Stripe.Checkout.Session;
    assert.equal(paid.payment_status, 'paid');

    start = bodies.length;
    const refund = await stack.stripe.refunds.create({ payment_intent: intent.id, amount: 100 });
    parsed = await notifications(start, 2);
    assert.deepEqual(
      parsed.map((n) => n.type),
      ['v1.refund.created', 'v1.charge.refunded'],
    );
    assert.equal(parsed[0]!.related_object.id, refund.id);
    const charge = (await parsed[1]!.fetchRelatedObject()) as Stripe.Charge;
    assert.equal(charge.amount_refunded, 100);
    // A change an API request made says which request.
    assert.equal(parsed[0]!.reason?.type, 'request');
  });
});
