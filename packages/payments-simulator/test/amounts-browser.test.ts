// The amounts and dates a person reads, in Chromium, against what Stripe's documentation says they
// are (stripe-arithmetic.ts computes them from the prices alone): a monthly checkout; ten days
// later an upgrade prorated onto the next invoice, a downgrade scheduled for the period's end and
// the next invoice that then bills both; the renewal; a month to a year invoiced at once; a team
// trial. A switch's time is known to a bracket of seconds (the clicks), so each figure that depends
// on it is accepted for any second of that bracket.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { CHROMIUM, DAY, nowSeconds, press, startWalk, text } from './amounts-walk.ts';
import { onPostgres } from './harness.ts';
import { addMonths, left, minuteOf, over, prorate, usd } from './stripe-arithmetic.ts';

const skip = onPostgres
  ? 'runs once, in the PGlite half'
  : !existsSync(CHROMIUM)
    ? `no browser at ${CHROMIUM}`
    : false;

describe('amounts and dates against Stripe, in a browser', { skip }, () => {
  let walk: Awaited<ReturnType<typeof startWalk>>;
  before(async () => {
    walk = await startWalk();
  });
  after(() => walk?.close());
  const newPage = () => walk.browser.newPage();

  test('monthly Pro; ten days on, Team prorated; Pro scheduled; the next invoice; the renewal', async () => {
    const page = await newPage();
    const bought = await walk.checkout(page, 'amounts-a@example.com', {
      line_items: [{ price: 'price_sim_pro', quantity: 1 }],
    });
    assert.equal(bought.shown.price, '$15.00 per month');
    assert.equal(bought.shown.total, 'Total due today $15.00');
    const { current_period_start: start, current_period_end: end } =
      bought.subscription.items.data[0]!;
    assert.ok(start >= bought.paidFrom && start <= bought.paidTo);
    assert.equal(end, addMonths(start, 1), 'a month after the checkout, to the second');

    await walk.portal(page, bought.customer);
    assert.equal(await text(page, '.next'), `Next invoice $15.00 on ${minuteOf(end)}`);
    const skew = await walk.advance(bought.customer, 10, start);
    await walk.portal(page, bought.customer); // a new session: the first expired with the hour
    const from = nowSeconds() + skew;
    assert.match(
      await press(page, /^Switch to Team \(\$49\.00\/month\)$/),
      /^Switched to Team \(\$49\.00\/month\); the prorated difference is on the next invoice\./,
    );
    const to = nowSeconds() + skew;
    // Credit for the unused time on the $15.00 paid, charge for the remaining time at $49.00.
    const prorations = (at: number) =>
      prorate(4900, left(start, end, at)) - prorate(1500, left(start, end, at));
    const next = await text(page, '.next');
    assert.ok(
      over(
        from,
        to,
        (at) => `Next invoice ${usd(4900 + prorations(at))} on ${minuteOf(end)}`,
      ).includes(next),
      next,
    );

    assert.match(
      await press(page, /^Switch to Pro \(\$15\.00\/month\) from /),
      new RegExp(
        `^Your plan changes to Pro \\(\\$15\\.00/month\\) on ${minuteOf(end)}; until then it stays Team \\(\\$49\\.00/month\\)\\.`,
      ),
    );
    assert.equal(await text(page, '.pending'), `Changes to Pro ($15.00/month) on ${minuteOf(end)}`);
    const expected = over(from, to, (at) => usd(1500 + prorations(at)));
    const scheduled = /^Next invoice (\S+) on /.exec(await text(page, '.next'))?.[1] ?? '';
    assert.ok(
      expected.includes(scheduled),
      `the pending prorations and a month of Pro: ${scheduled}`,
    );

    await page.goto(walk.stack.simulator.url);
    const row = page.locator('tr', { hasText: bought.subscription.id });
    await Promise.all([
      page.waitForURL(/\?notice=/),
      row.getByRole('button', { name: 'Renew', exact: true }).click(),
    ]);
    assert.match(
      await text(page, '.notice'),
      new RegExp(
        `^Payment of \\${scheduled} succeeded: the subscription is active until ${minuteOf(addMonths(start, 2))}\\.`,
      ),
    );
    await page.close();
  });

  test('monthly Pro; ten days on, a year at once, with the unused month credited', async () => {
    const page = await newPage();
    const bought = await walk.checkout(page, 'amounts-b@example.com', {
      line_items: [{ price: 'price_sim_pro', quantity: 1 }],
    });
    const { current_period_start: start, current_period_end: end } =
      bought.subscription.items.data[0]!;
    const skew = await walk.advance(bought.customer, 10, start);
    await walk.portal(page, bought.customer);
    const from = nowSeconds() + skew;
    const notice = await press(page, /^Switch to Pro \(\$150\.00\/year\)$/);
    const to = nowSeconds() + skew;
    const invoiced = over(
      from,
      to,
      (at) =>
        `the prorated difference of ${usd(15000 - prorate(1500, left(start, end, at)))} was invoiced.`,
    );
    assert.ok(
      invoiced.some((words) => notice.includes(words)),
      notice,
    );
    // A new yearly period starts at the switch.
    const renewals = over(
      from,
      to,
      (at) => `Next invoice $150.00 on ${minuteOf(addMonths(at, 12))}`,
    );
    assert.ok(renewals.includes(await text(page, '.next')), await text(page, '.next'));
    await page.close();
  });

  test('a team trial of three seats: nothing today, then three months of Team', async () => {
    const page = await newPage();
    const bought = await walk.checkout(page, 'amounts-c@example.com', {
      line_items: [{ price: 'price_sim_team', quantity: 3 }],
      subscription_data: { trial_period_days: 14 },
    });
    assert.equal(bought.shown.price, '14 days free');
    assert.equal(bought.shown.total, 'Total due today $0.00');
    const trialEnd = bought.subscription.trial_end!;
    assert.ok(trialEnd >= bought.paidFrom + 14 * DAY && trialEnd <= bought.paidTo + 14 * DAY);
    await walk.portal(page, bought.customer);
    assert.equal(
      await text(page, '.next'),
      `Next invoice ${usd(3 * 4900)} on ${minuteOf(trialEnd)}`,
    );
    await page.close();
  });
});
