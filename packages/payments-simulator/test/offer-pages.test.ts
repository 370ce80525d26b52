// The prices and words of the simulator's pages in a browser, for every combination of the offers
// a checkout can carry (a trial with or without a card, the SAVE20 code typed on the page,
// automatic tax, several seats): the checkout page, the completed checkout, the billing portal
// (the price with the discount, the coupon, the next invoice, the card, the invoice history), the
// dashboard, and the invoices as the API answers them and the events carry them, all agreeing.
// The expected amounts are Stripe's arithmetic written out here, not the simulator's own code: the
// coupon's 20 % off the line, rounded to the cent, then 10 % tax on what is left, rounded; a
// trial's first invoice is $0 with its trial line, and the discounted price is charged when it
// ends.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import type Stripe from 'stripe';
import { onPostgres, startStack, type SimulatorStack } from './harness.ts';

const CHROMIUM = '/usr/bin/chromium';
const skip = onPostgres
  ? 'runs once, in the PGlite half'
  : !existsSync(CHROMIUM)
    ? `no browser at ${CHROMIUM}`
    : false;

interface Offer {
  name: string;
  plan: 'pro' | 'team';
  quantity: number;
  /** A trial of 14 days: with the card asked for, or without one (payment_method_collection=if_required). */
  trial?: 'card' | 'no card';
  code?: boolean;
  tax?: boolean;
}

const OFFERS: Offer[] = [
  { name: 'plain', plan: 'pro', quantity: 1 },
  { name: 'three seats', plan: 'team', quantity: 3 },
  { name: 'SAVE20', plan: 'pro', quantity: 1, code: true },
  { name: 'tax', plan: 'pro', quantity: 1, tax: true },
  { name: 'SAVE20 and tax', plan: 'pro', quantity: 1, code: true, tax: true },
  { name: 'SAVE20, tax, three seats', plan: 'team', quantity: 3, code: true, tax: true },
  { name: 'trial with a card', plan: 'pro', quantity: 1, trial: 'card' },
  { name: 'trial without a card', plan: 'pro', quantity: 1, trial: 'no card' },
  { name: 'trial and SAVE20', plan: 'pro', quantity: 1, trial: 'card', code: true },
  { name: 'trial, SAVE20 and tax', plan: 'pro', quantity: 1, trial: 'card', code: true, tax: true },
  {
    name: 'trial without a card, SAVE20, tax, three seats',
    plan: 'team',
    quantity: 3,
    trial: 'no card',
    code: true,
    tax: true,
  },
];

const UNIT = { pro: 1500, team: 4900 };
const TITLE = { pro: 'Pro', team: 'Team' };

/** A period's charge as Stripe computes it: discount first, tax on the rest, cents rounded per line. */
function stripeCharge({ plan, quantity, code, tax }: Offer) {
  const subtotal = UNIT[plan] * quantity;
  const discount = code ? Math.round((subtotal * 20) / 100) : 0;
  const taxed = tax ? Math.round(((subtotal - discount) * 10) / 100) : 0;
  return {
    subtotal,
    discount,
    net: subtotal - discount,
    tax: taxed,
    total: subtotal - discount + taxed,
  };
}

const usd = (cents: number): string => `$${(cents / 100).toFixed(2)}`;
const words = (text: string | null): string => (text ?? '').replace(/\s+/g, ' ').trim();
const COUPON = 'SAVE20 (20% off forever)';

describe('offer prices on the simulator pages, in a browser', { skip }, () => {
  let stack: SimulatorStack;
  let browser: Browser;
  let page: Page;
  before(async () => {
    stack = await startStack();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    page = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await stack?.close();
  });

  const body = async () => words(await page.textContent('body'));

  async function openSession(offer: Offer, tag: string): Promise<Stripe.Checkout.Session> {
    const { stripe, simulator } = stack;
    const customer = await stripe.customers.create({ email: `${tag}@example.com` });
    return stripe.checkout.sessions.create({
      mode: 'subscription',
      customer: customer.id,
      line_items: [{ price: `price_sim_${offer.plan}`, quantity: offer.quantity }],
      success_url: `${simulator.url}/?paid={CHECKOUT_SESSION_ID}`,
      cancel_url: `${simulator.url}/`,
      ...(offer.code && { allow_promotion_codes: true }),
      ...(offer.tax && { automatic_tax: { enabled: true }, customer_update: { address: 'auto' } }),
      ...(offer.trial && {
        subscription_data: { trial_period_days: 14 },
        payment_method_collection: offer.trial === 'card' ? 'always' : 'if_required',
      }),
    });
  }

  /** The checkout page: the code typed in, then what it says the offer costs. */
  async function checkCheckout(offer: Offer, session: Stripe.Checkout.Session) {
    const charge = stripeCharge(offer);
    await page.goto(session.url!);
    if (offer.code) {
      await page.fill('#promotion-code', 'save20');
      await Promise.all([page.waitForURL(/notice=/), page.click('button:text("Apply")')]);
      assert.equal((await body()).split('Code SAVE20 applied.').length - 1, 1, 'said once');
    }
    const text = await body();
    const says = (phrase: string, yes = true) => assert.equal(text.includes(phrase), yes, phrase);
    if (offer.trial) {
      const coupon = offer.code ? ` with ${COUPON}` : '';
      says(`14 days free, then ${usd(charge.net)} per month${coupon}`);
      says(`Total after trial ${usd(charge.total)}`);
      says('Start trial');
    } else says(`Pay ${usd(charge.total)} and subscribe`);
    says(`Total due today ${usd(offer.trial ? 0 : charge.total)}`);
    if (offer.quantity > 1)
      says(`${offer.quantity} × ${TITLE[offer.plan]} · ${usd(charge.subtotal)} per month in total`);
    says(`${COUPON} −${usd(charge.discount)}`, offer.code === true);
    says(`Sales tax (simulated, 10%) ${usd(charge.tax)}`, offer.tax === true);
    says('No card is needed for the trial.', offer.trial === 'no card');
  }

  /** The objects: the session, the first invoice, and the invoice.paid event that carried it. */
  async function checkFirstInvoice(offer: Offer, sessionId: string) {
    const charge = stripeCharge(offer);
    const session = await stack.stripe.checkout.sessions.retrieve(sessionId);
    const today = offer.trial ? 0 : charge.total;
    assert.equal(session.amount_total, today);
    assert.equal(session.payment_status, offer.trial ? 'no_payment_required' : 'paid');
    const invoice = await stack.stripe.invoices.retrieve(session.invoice as string);
    assert.equal(invoice.total, today);
    if (offer.trial)
      assert.deepEqual(
        [invoice.lines.data[0]!.description, invoice.lines.data[0]!.amount],
        [`Trial period for ${TITLE[offer.plan]}`, 0],
      );
    else checkInvoice(offer, invoice);
    await page.goto(`${stack.simulator.url}/checkout/${session.id}`);
    const done = offer.trial ? 'Nothing was charged today' : `${usd(charge.total)} was paid`;
    assert.ok((await body()).includes(done), done);
    return session.subscription as string;
  }

  /** An invoice for a period: its discount and tax amounts as Stripe lays them out. */
  function checkInvoice(offer: Offer, invoice: Stripe.Invoice) {
    const charge = stripeCharge(offer);
    const [line] = invoice.lines.data;
    assert.deepEqual(
      [invoice.subtotal, invoice.total_excluding_tax, invoice.total, invoice.amount_paid],
      [charge.subtotal, charge.net, charge.total, charge.total],
    );
    const discount = invoice.discounts[0];
    assert.equal(invoice.discounts.length, offer.code ? 1 : 0);
    assert.deepEqual(
      invoice.total_discount_amounts,
      offer.code ? [{ amount: charge.discount, discount }] : [],
    );
    assert.deepEqual(
      line!.discount_amounts,
      offer.code ? [{ amount: charge.discount, discount }] : [],
    );
    assert.deepEqual(
      (invoice.total_taxes ?? []).map((t) => [t.amount, t.taxable_amount]),
      offer.tax ? [[charge.tax, charge.net]] : [],
    );
    assert.deepEqual(
      (line!.taxes ?? []).map((t) => t.amount),
      offer.tax ? [charge.tax] : [],
    );
    const paid = stack.receiver.events.find(
      (e) => e.type === 'invoice.paid' && (e.data.object as Stripe.Invoice).id === invoice.id,
    );
    assert.ok(paid, 'invoice.paid sent');
    const sent = paid.data.object as Stripe.Invoice;
    assert.deepEqual(
      [sent.total, sent.total_discount_amounts, sent.total_taxes],
      [invoice.total, invoice.total_discount_amounts, invoice.total_taxes],
    );
  }

  /** The portal: the price with the discount applied, the coupon, the next invoice, the card, the history. */
  async function checkPortal(offer: Offer, customer: string, invoiced: number[]) {
    const charge = stripeCharge(offer);
    const portal = await stack.stripe.billingPortal.sessions.create({ customer });
    await page.goto(portal.url);
    const price = words(await page.textContent('.subscription .monthly'));
    const list = offer.code ? `${usd(charge.subtotal)} ` : '';
    const tax = offer.tax ? ` + ${usd(charge.tax)} tax` : '';
    assert.ok(price.startsWith(`${list}${usd(charge.net)} per month${tax} · `), price);
    const text = await body();
    assert.equal(text.includes(COUPON), offer.code === true);
    assert.ok(text.includes(`Next invoice ${usd(charge.total)} on`), text);
    // The other plan, at the same quantity with the same discount and tax: what it would cost.
    const other = offer.plan === 'pro' ? 'team' : 'pro';
    const switched = stripeCharge({ ...offer, plan: other });
    const otherTax = offer.tax ? ` + ${usd(switched.tax)} tax` : '';
    const each = offer.quantity === 1 ? '' : `${offer.quantity} × ${usd(UNIT[other])} = `;
    const code = offer.code ? ' with SAVE20' : '';
    assert.equal(
      words(await page.textContent('form[action$="/switch"] button')),
      `Switch to ${TITLE[other]} (${each}${usd(switched.net)}/month${code}${otherTax})`,
    );
    const card =
      offer.trial === 'no card' && invoiced.length === 1 ? 'No card on file' : 'Visa •••• 4242';
    assert.equal(words(await page.textContent('#card')), `${card} (simulated)`);
    // The history's own rows, not the lines laid out inside each (invoice-lines.ts).
    const amounts = await page.$$eval(
      'table:not(.invoice-lines) > tbody > tr > td:nth-child(2)',
      (cells) => cells.map((c) => c.textContent),
    );
    assert.deepEqual(amounts, invoiced.map(usd).reverse());
    if (invoiced.at(-1)! > 0 && (offer.code || offer.tax)) {
      const parts = [`Subtotal ${usd(charge.subtotal)}`];
      if (offer.code) parts.push(`${COUPON} −${usd(charge.discount)}`);
      if (offer.tax) parts.push(`Sales tax ${usd(charge.tax)}`);
      parts.push(`Total ${usd(charge.total)}`);
      const rows = await page.$$eval('table.invoice-lines', (tables) =>
        [...tables[0]!.querySelectorAll('tr')].map((tr) =>
          [...tr.querySelectorAll('td')].map((td) => td.textContent).join(' '),
        ),
      );
      assert.deepEqual(rows.slice(-parts.length), parts);
    }
  }

  /** The dashboard's row: the quantity, the monthly price after the discount and its tax, the next invoice. */
  async function checkDashboard(offer: Offer, subscription: string) {
    const charge = stripeCharge(offer);
    await page.goto(`${stack.simulator.url}/`);
    const row = words(await page.textContent(`tr:has(code:text("${subscription}"))`));
    const tax = offer.tax ? ` + ${usd(charge.tax)} tax` : '';
    assert.ok(row.includes(`${offer.quantity} × `), row);
    assert.ok(row.includes(`${usd(charge.net)} per month${tax}`), row);
    assert.ok(row.includes(`next invoice ${usd(charge.total)} on`), row);
    assert.equal(row.includes(COUPON), offer.code === true, row);
  }

  /** Ends the trial from the dashboard (adding a card when there is none): the first real charge. */
  async function endTrial(offer: Offer, subscription: string) {
    const charge = stripeCharge(offer);
    await page.goto(`${stack.simulator.url}/`);
    const action = offer.trial === 'card' ? 'end-trial' : 'end-trial-with-card';
    await Promise.all([
      page.waitForURL(/notice=/),
      page.click(`form[action="/dashboard/subscriptions/${subscription}/${action}"] button`),
    ]);
    const notice = words(await page.textContent('.notice'));
    assert.ok(notice.includes(`first payment of ${usd(charge.total)} succeeded`), notice);
    const ended = await stack.stripe.subscriptions.retrieve(subscription, {
      expand: ['latest_invoice'],
    });
    checkInvoice(offer, ended.latest_invoice as Stripe.Invoice);
  }

  for (const offer of OFFERS)
    test(offer.name, async () => {
      const tag = offer.name.replace(/\W+/g, '-');
      const session = await openSession(offer, tag);
      await checkCheckout(offer, session);
      await Promise.all([page.waitForURL(/\/\?paid=cs_test_/), page.click('button.primary')]);
      const subscription = await checkFirstInvoice(offer, session.id);
      const customer = session.customer as string;
      const first = offer.trial ? 0 : stripeCharge(offer).total;
      await checkPortal(offer, customer, [first]);
      await checkDashboard(offer, subscription);
      if (!offer.trial) return;
      await endTrial(offer, subscription);
      await checkPortal(offer, customer, [0, stripeCharge(offer).total]);
    });
});
