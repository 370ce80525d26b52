// Grants (contract section 14): a paid tier's `credits` granted when an invoice of its subscription
// for a new period is paid (invoice.paid, billing_reason subscription_create or subscription_cycle),
// once per invoice, expiring at the invoice line's period end; the next period's grant ends the one
// before (what was left expiring, an `expiry` entry); a plan change within a period grants nothing;
// the free tier's credits once per calendar month on the first read or spend; a spend takes from the
// grant first, then from purchases. The example entitlements grant free 100, pro 1000, team 5000.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { DEV_SERVICE_CLIENT } from '../../src/config.ts';
import { bearer, buildTestApp, profileId, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import {
  checkoutSessionObject,
  deliver,
  eventOf,
  invoiceObject,
  subscriptionObject,
  type FixtureEvent,
} from '../helpers/stripe-fixtures.ts';

interface Entry {
  id: string;
  at: string;
  kind: string;
  amount: number;
  balance_after: number;
  reason: string | null;
}

interface Credits {
  subject: { type: string; id: string };
  balance: number;
  grant: { amount: number; remaining: number; expires_at: string } | null;
  purchased: number;
}

const DAY = 86_400;
const hex = () => randomBytes(6).toString('hex');
const unixNow = () => Math.floor(Date.now() / 1000);

/** A subscriber as the fixtures make one: the subscription stored, its customer linked. */
interface Subscriber {
  sub: string;
  id: string;
  customer: string;
  subscriptionId: string;
  periodEnd: number;
}

/**
 * invoice.paid for the subscriber's subscription, billing `price` for the period ending at
 * `periodEnd` (its line, as Stripe's current API shows it). Dated a minute back, before the
 * subscription's stored state, so the service has no reason to read the subscription again.
 */
const invoicePaid = (
  s: Subscriber,
  billingReason: string,
  { price = 'price_sim_pro', periodEnd = s.periodEnd, invoiceId = `in_${hex()}` } = {},
) =>
  eventOf(
    'invoice.paid',
    invoiceObject(s.subscriptionId, s.customer, {
      id: invoiceId,
      billing_reason: billingReason,
      lines: {
        object: 'list',
        has_more: false,
        data: [
          {
            id: `il_${hex()}`,
            object: 'line_item',
            amount: 1500,
            currency: 'usd',
            period: { start: periodEnd - 30 * DAY, end: periodEnd },
            pricing: {
              type: 'price_details',
              price_details: { price, product: 'prod_sim' },
              unit_amount_decimal: '1500',
            },
            quantity: 1,
          },
        ],
      },
    } as never),
    { created: unixNow() - 60 },
  );

describe(`credit grants (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const accepted = async (event: FixtureEvent) => {
    const response = await deliver(t.app, event);
    assert.equal(response.statusCode, 200, response.body);
  };

  const credits = async (sub: string): Promise<Credits> => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/credits',
      headers: bearer(await t.token(sub)),
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };

  /** Every entry, oldest first (by id: the ledger's own order is credits.ledger.test.ts's). */
  const ledger = async (sub: string): Promise<Entry[]> => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/credits/ledger?limit=200',
      headers: bearer(await t.token(sub)),
    });
    assert.equal(response.statusCode, 200, response.body);
    return (response.json().entries as Entry[]).sort((a, b) => Number(a.id) - Number(b.id));
  };

  const spend = async (sub: string, amount: number) => {
    const token = await t.token('backend', undefined, {
      email: undefined,
      extra: { client_id: DEV_SERVICE_CLIENT, scope: 'billing:credits', gty: 'client-credentials' },
    });
    return t.app.inject({
      method: 'POST',
      url: '/api/v1/credits/spend',
      headers: bearer(token),
      payload: { subject: { type: 'user', idp_id: sub }, amount, idempotency_key: hex() },
    });
  };

  const spent = async (sub: string, amount: number) => {
    const response = await spend(sub, amount);
    assert.equal(response.statusCode, 200, response.body);
    return response.json().balance as number;
  };

  /** `sub` subscribed to `price` (customer.subscription.created), with no invoice paid yet. */
  const subscribe = async (sub: string, price = 'price_sim_pro'): Promise<Subscriber> => {
    const id = await profileId(t, sub);
    const customer = `cus_${hex()}`;
    const periodEnd = unixNow() + 30 * DAY;
    const subscription = subscriptionObject({
      customer,
      priceId: price,
      periodEnd,
      metadata: { user_id: id },
    });
    await accepted(eventOf('customer.subscription.created', subscription));
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/v1/users/me',
      headers: bearer(await t.token(sub)),
    });
    assert.notEqual(me.json().tier, 'free', 'the subscription is stored for the user');
    return { sub, id, customer, subscriptionId: subscription.id, periodEnd };
  };

  const isoOf = (unix: number) => new Date(unix * 1000).toISOString();
  const sameInstant = (wire: string, unix: number) =>
    assert.equal(new Date(wire).toISOString(), isoOf(unix), `${wire} is ${isoOf(unix)}`);

  test("invoice.paid (subscription_create) grants pro's 1000, expiring at the line's period end", async () => {
    const s = await subscribe('grant-create');
    assert.equal((await credits('grant-create')).grant, null, 'no grant before the invoice');
    await accepted(invoicePaid(s, 'subscription_create'));
    const read = await credits('grant-create');
    assert.equal(read.balance, 1000);
    assert.equal(read.purchased, 0);
    assert.equal(read.grant!.amount, 1000);
    assert.equal(read.grant!.remaining, 1000);
    sameInstant(read.grant!.expires_at, s.periodEnd);
    const entries = await ledger('grant-create');
    assert.deepEqual(
      entries.map((e) => [e.kind, e.amount, e.balance_after]),
      [['grant', 1000, 1000]],
    );
  });

  test('the same invoice again, under another event id, grants nothing more', async () => {
    const s = await subscribe('grant-twice');
    const paid = invoicePaid(s, 'subscription_create');
    await accepted(paid);
    assert.equal(await spent('grant-twice', 100), 900);
    await accepted({ ...paid, id: `${paid.id}_again` });
    await accepted(paid);
    const read = await credits('grant-twice');
    assert.equal(read.grant!.remaining, 900, 'the grant is not made again, nor renewed');
    assert.equal(read.balance, 900);
    assert.deepEqual(
      (await ledger('grant-twice')).map((e) => e.kind),
      ['grant', 'spend'],
    );
  });

  test("the next period's invoice (subscription_cycle) expires what was left and grants 1000 anew", async () => {
    const s = await subscribe('grant-cycle');
    await accepted(invoicePaid(s, 'subscription_create'));
    assert.equal(await spent('grant-cycle', 300), 700);
    const nextEnd = s.periodEnd + 30 * DAY;
    await accepted(invoicePaid(s, 'subscription_cycle', { periodEnd: nextEnd }));
    const read = await credits('grant-cycle');
    assert.deepEqual(
      { ...read.grant, expires_at: new Date(read.grant!.expires_at).toISOString() },
      { amount: 1000, remaining: 1000, expires_at: isoOf(nextEnd) },
    );
    assert.equal(read.balance, 1000, 'the 700 left of the first grant do not roll over');
    assert.deepEqual(
      (await ledger('grant-cycle')).map((e) => [e.kind, e.amount, e.balance_after]),
      [
        ['grant', 1000, 1000],
        ['spend', -300, 700],
        ['expiry', -700, 0],
        ['grant', 1000, 1000],
      ],
    );
  });

  test("a plan change within the period (subscription_update) grants nothing; the next period grants the new tier's", async () => {
    const s = await subscribe('grant-update');
    await accepted(invoicePaid(s, 'subscription_create'));
    const before = await ledger('grant-update');
    await accepted(invoicePaid(s, 'subscription_update', { price: 'price_sim_team' }));
    // A change to a yearly price bills a longer period at once; still a plan change.
    const yearEnd = s.periodEnd + 335 * DAY;
    await accepted(
      invoicePaid(s, 'subscription_update', { price: 'price_sim_team_year', periodEnd: yearEnd }),
    );
    await accepted(invoicePaid(s, 'manual', { price: 'price_sim_team', periodEnd: yearEnd }));
    const read = await credits('grant-update');
    assert.equal(read.grant!.amount, 1000);
    assert.equal(read.balance, 1000);
    assert.deepEqual(await ledger('grant-update'), before);
    const nextEnd = s.periodEnd + 30 * DAY;
    await accepted(
      invoicePaid(s, 'subscription_cycle', { price: 'price_sim_team', periodEnd: nextEnd }),
    );
    const team = await credits('grant-update');
    assert.equal(team.grant!.amount, 5000);
    assert.equal(team.balance, 5000);
  });

  test('an invoice for a period already over grants nothing', async () => {
    const s = await subscribe('grant-late');
    await accepted(invoicePaid(s, 'subscription_create', { periodEnd: unixNow() - DAY }));
    const read = await credits('grant-late');
    assert.equal(read.grant, null);
    assert.equal(read.balance, 0);
  });

  test('an unused grant expires at its end: an expiry entry at that time, nothing left', async () => {
    const s = await subscribe('grant-ends');
    const end = unixNow() + 2;
    await accepted(invoicePaid(s, 'subscription_create', { periodEnd: end }));
    assert.equal((await credits('grant-ends')).balance, 1000);
    await sleep(end * 1000 - Date.now() + 300);
    const read = await credits('grant-ends');
    assert.equal(read.grant, null);
    assert.equal(read.balance, 0);
    const [grant, expiry, ...rest] = await ledger('grant-ends');
    assert.deepEqual(rest, []);
    assert.equal(grant!.kind, 'grant');
    assert.deepEqual([expiry!.kind, expiry!.amount, expiry!.balance_after], ['expiry', -1000, 0]);
    sameInstant(expiry!.at, end);
  });

  test('a spend takes from the grant first, then from purchased credits', async () => {
    const s = await subscribe('grant-order');
    await accepted(invoicePaid(s, 'subscription_create'));
    await accepted(
      eventOf(
        'checkout.session.completed',
        checkoutSessionObject({
          mode: 'payment',
          subscription: null,
          customer: s.customer,
          client_reference_id: s.id,
          metadata: { user_id: s.id, credit_pack: 'small' },
          payment_intent: `pi_${hex()}`,
        }),
      ),
    );
    const start = await credits('grant-order');
    assert.deepEqual([start.grant!.remaining, start.purchased, start.balance], [1000, 500, 1500]);
    assert.equal(await spent('grant-order', 400), 1100);
    const mid = await credits('grant-order');
    assert.deepEqual([mid.grant!.remaining, mid.purchased], [600, 500]);
    assert.equal(await spent('grant-order', 800), 300);
    const end = await credits('grant-order');
    assert.deepEqual([end.grant!.remaining, end.purchased, end.balance], [0, 300, 300]);
  });

  test("a free user's first read in a month grants the free tier's 100, once, until the month's end", async () => {
    await profileId(t, 'grant-free');
    const first = await credits('grant-free');
    const now = new Date();
    const monthEnd = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1) / 1000;
    assert.equal(first.balance, 100);
    assert.equal(first.grant!.amount, 100);
    assert.equal(first.grant!.remaining, 100);
    sameInstant(first.grant!.expires_at, monthEnd);
    const second = await credits('grant-free');
    assert.deepEqual(second, first);
    assert.equal(await spent('grant-free', 10), 90);
    assert.equal((await credits('grant-free')).balance, 90, 'no new grant after a spend either');
    assert.deepEqual(
      (await ledger('grant-free')).map((e) => [e.kind, e.amount]),
      [
        ['grant', 100],
        ['spend', -10],
      ],
    );
  });

  test("a subject first seen by a spend gets the free month's grant before the spend", async () => {
    const response = await spend('grant-unseen', 30);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { balance: 70 });
    const again = await spend('grant-unseen', 80);
    assert.equal(again.statusCode, 402, again.body);
    assert.equal(again.json().balance, 70);
  });

  test("a new grant ends the one before: a free month's remainder expires when a paid period is granted", async () => {
    assert.equal((await credits('grant-upgrade')).balance, 100);
    assert.equal(await spent('grant-upgrade', 40), 60);
    const s = await subscribe('grant-upgrade');
    await accepted(invoicePaid(s, 'subscription_create'));
    const read = await credits('grant-upgrade');
    assert.equal(read.grant!.amount, 1000);
    assert.equal(read.balance, 1000);
    assert.deepEqual(
      (await ledger('grant-upgrade')).map((e) => [e.kind, e.amount, e.balance_after]),
      [
        ['grant', 100, 100],
        ['spend', -40, 60],
        ['expiry', -60, 0],
        ['grant', 1000, 1000],
      ],
    );
  });
});
