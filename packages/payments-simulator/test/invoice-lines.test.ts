// The portal's invoice history lays out a switch with a promotion code as Stripe's invoice preview
// does: each line and its amount, then the subtotal, the discount once, and the total. Pro by the month with SAVE20, switched to Pro by the year at once: the
// unused month is credited at what was paid (-$12.00, SAVE20 already in it), the year is $150.00
// less SAVE20's $30.00.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  databaseLabel,
  noticeAt,
  pay,
  PRICES_BY_MONTH_AND_YEAR,
  startStack,
  type SimulatorStack,
  onceInTheSuite,
} from './harness.ts';

const unescape = (text: string) => text.replace(/&amp;/g, '&').replace(/&#39;/g, "'");

/** The rows of the first invoice's lines on a portal page: [label, amount]. */
function invoiceRows(page: string): string[][] {
  const table = /<table class="invoice-lines">([\s\S]*?)<\/table>/.exec(page)?.[1] ?? '';
  return [...table.matchAll(/<tr[^>]*><td>(.*?)<\/td><td class="amount">(.*?)<\/td><\/tr>/g)].map(
    ([, label, amount]) => [unescape(label!), amount!],
  );
}

describe(`an invoice with a promotion code, in lines (${databaseLabel})`, onceInTheSuite, () => {
  let stack: SimulatorStack;
  before(async () => {
    stack = await startStack({ prices: PRICES_BY_MONTH_AND_YEAR });
  });
  after(() => stack.close());

  test('a month to a year with SAVE20: lines, subtotal, the discount once, total', async () => {
    const { stripe, simulator } = stack;
    const customer = await stripe.customers.create({ email: 'lines@example.com' });
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      customer: customer.id,
      line_items: [{ price: 'price_sim_pro', quantity: 1 }],
      success_url: 'https://app.example.test/ok',
      cancel_url: 'https://app.example.test/no',
      discounts: [{ promotion_code: 'promo_sim_save20' }],
    });
    await pay(simulator, session.id);
    const subscription = (await stripe.checkout.sessions.retrieve(session.id))
      .subscription as string;
    const portal = await stripe.billingPortal.sessions.create({ customer: customer.id });
    const switched = await fetch(`${portal.url}/switch`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ subscription, price: 'price_sim_pro_year' }).toString(),
    });
    assert.match(await noticeAt(switched.headers.get('location')!, portal.url), /\$108\.00/);

    const rows = invoiceRows(await (await fetch(portal.url)).text());
    assert.ok(rows.length > 0, 'the invoice is laid out in lines');
    assert.match(rows[0]![0]!, /^Unused time on Pro after .+ \(after SAVE20\)$/);
    assert.deepEqual(
      rows.slice(0, 1).map(([, amount]) => amount),
      ['-$12.00'],
    );
    assert.deepEqual(rows.slice(1), [
      ['1 × Pro (at $150.00 / year)', '$150.00'],
      ['Subtotal', '$138.00'],
      ['SAVE20 (20% off forever)', '−$30.00'],
      ['Total', '$108.00'],
    ]);
  });
});
