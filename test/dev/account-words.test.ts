// /billing says a user's state in words, above all where the tier and the provider's status seem
// to disagree: a failed renewal keeps the tier for the grace period (and says until when), a
// cancellation at period end keeps it until then; a trial says what happens when it ends, from
// whether its checkout took a card. An organisation's account is said in the same words, for its
// members, with a manager as the one who acts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { accountView, planChangeWords } from '../../src/dev/account-words.ts';
import { ORGANIZATION } from '../../src/dev/voice.ts';
import type { SubscriptionDetails } from '../../src/domain/billing/subscription-summary.ts';
import type {
  SubscriptionState,
  SubscriptionStatus,
} from '../../src/domain/model/subscriptions.ts';
import type { User } from '../../src/domain/model/accounts.ts';

const policy = {
  tierByPrice: new Map([
    ['price_pro', 'pro'],
    ['price_team', 'team'],
  ]),
  graceDays: 7,
  trialRequiresCard: true,
};
const now = new Date('2026-06-15T12:00:00Z');
const DAY = 86_400_000;

function user(status: SubscriptionStatus | null, overrides: Partial<SubscriptionState> = {}): User {
  const subscription: SubscriptionState | null =
    status === null
      ? null
      : {
          id: 'sub_1',
          customerId: 'cus_1',
          owner: { type: 'user', id: 'u1' },
          status,
          priceId: 'price_team',
          itemId: 'si_1',
          quantity: 1,
          cancelAtPeriodEnd: false,
          cancelAt: null,
          currentPeriodEnd: new Date('2026-07-01T00:00:00Z'),
          trialEnd: null,
          createdAt: now,
          paymentFailedAt: null,
          asOf: 0,
          revision: 1,
          ...overrides,
        };
  return {
    id: 'u1',
    idpId: 'alice',
    email: 'alice@example.com',
    plan: null,
    paymentsCustomerId: status === null ? null : 'cus_1',
    createdAt: now,
    firstSubscriptionAt: subscription === null ? null : now,
    subscription,
  };
}

describe('the account in words', () => {
  test('past_due within the grace period: the paid tier, why, and until when', () => {
    const view = accountView(
      user('past_due', { paymentFailedAt: new Date(now.getTime() - 2 * DAY) }),
      policy,
      now,
    );
    assert.equal(view.tier, 'team');
    assert.deepEqual(view.status, [
      'The last payment for your team subscription failed on 2026-06-13 12:00 UTC.',
      'You keep team during the grace period of 7 days, until 2026-06-20 12:00 UTC; after that free, unless a payment goes through. The provider retries it; update your card in the billing portal.',
    ]);
    assert.equal(view.canCheckout, false);
    assert.equal(view.canManage, true);
  });

  test('past_due after the grace period: free, and since when', () => {
    const view = accountView(
      user('past_due', { paymentFailedAt: new Date(now.getTime() - 9 * DAY) }),
      policy,
      now,
    );
    assert.equal(view.tier, 'free');
    assert.match(
      view.status[1]!,
      /^The grace period ended on 2026-06-13 12:00 UTC: you are on free until a payment goes through/,
    );
  });

  test('canceled at period end: the tier until the period ends', () => {
    const view = accountView(user('active', { cancelAtPeriodEnd: true }), policy, now);
    assert.deepEqual(view.status, [
      'Your team subscription is canceled at the end of its period: you keep team until 2026-07-01 00:00 UTC, then free.',
    ]);
  });

  test('active, canceled, none: what there is, and whether a checkout is offered', () => {
    assert.deepEqual(accountView(user('active'), policy, now).status, [
      'Your team subscription is active until 2026-07-01 00:00 UTC, then renews.',
    ]);
    const canceled = accountView(user('canceled'), policy, now);
    assert.deepEqual(
      [canceled.tier, canceled.status, canceled.canCheckout],
      ['free', ['Your team subscription was canceled.'], true],
    );
    const none = accountView(user(null), policy, now);
    assert.deepEqual(
      [none.tier, none.status, none.canCheckout, none.canManage],
      ['free', ['You have no subscription yet.'], true, false],
    );
  });

  test("canceled with cancel_at alone (Stripe's flexible billing mode): the same words, and the end once passed", () => {
    const periodEnd = new Date('2026-07-01T00:00:00Z');
    assert.deepEqual(accountView(user('active', { cancelAt: periodEnd }), policy, now).status, [
      'Your team subscription is canceled at the end of its period: you keep team until 2026-07-01 00:00 UTC, then free.',
    ]);
    assert.deepEqual(
      accountView(user('active', { cancelAt: new Date('2026-06-20T00:00:00Z') }), policy, now)
        .status,
      [
        'Your team subscription is canceled as of 2026-06-20 00:00 UTC: you keep team until 2026-06-20 00:00 UTC, then free.',
      ],
    );
    const over = accountView(
      user('active', { cancelAt: new Date(now.getTime() - DAY) }),
      policy,
      now,
    );
    assert.deepEqual(
      [over.tier, over.status, over.canCheckout],
      ['free', ['Your team subscription ended on 2026-06-14 12:00 UTC: you are on free.'], true],
    );
  });

  test('trialing: until when, and what then, from whether the checkout took a card', () => {
    const trialing = user('trialing', { trialEnd: new Date('2026-06-29T12:00:00Z') });
    const withCard = accountView(trialing, policy, now);
    assert.equal(withCard.tier, 'team');
    assert.deepEqual(withCard.status, [
      'Your team trial runs until 2026-06-29 12:00 UTC.',
      'Then the team subscription starts and the card given at checkout is charged, unless you cancel before.',
    ]);
    const cardless = accountView(trialing, { ...policy, trialRequiresCard: false }, now);
    assert.deepEqual(cardless.status, [
      'Your team trial runs until 2026-06-29 12:00 UTC.',
      'The checkout asked for no card. If one is on file by then (add it in the billing portal), the team subscription starts and the card is charged; without one the trial is canceled and you are back on free.',
    ]);
    for (const { status } of [withCard, cardless])
      assert.doesNotMatch(status.join(' '), /if there is a way to pay/);
  });
});

describe('the interval and a change waiting for the period end in words', () => {
  const details = (overrides: Partial<SubscriptionDetails>): SubscriptionDetails => ({
    status: 'active',
    plan: 'team',
    interval: 'year',
    trial_end: null,
    current_period_end: new Date('2027-06-01T00:00:00+00:00'),
    cancel_at: null,
    cancel_at_period_end: false,
    pending_change: null,
    ...overrides,
  });

  test('how it is billed, then what it switches to and when', () => {
    assert.deepEqual(planChangeWords(details({})), ['Billed yearly.']);
    assert.deepEqual(
      planChangeWords(
        details({
          pending_change: {
            plan: 'pro',
            interval: 'month',
            effective_at: new Date('2027-06-01T00:00:00+00:00'),
          },
        }),
      ),
      ['Billed yearly.', 'Switches to pro, monthly, on 2027-06-01 00:00 UTC.'],
    );
  });

  test('nothing for no subscription or an ended one; a price not sold said so', () => {
    assert.deepEqual(planChangeWords(null), []);
    assert.deepEqual(planChangeWords(details({ status: 'canceled' })), []);
    assert.deepEqual(
      planChangeWords(
        details({
          interval: null,
          pending_change: {
            plan: null,
            interval: null,
            effective_at: new Date('2027-06-01T00:00:00Z'),
          },
        }),
      ),
      ['Switches to a plan this service does not sell, on 2027-06-01 00:00 UTC.'],
    );
  });
});

describe("an organisation's account in words", () => {
  const org = (status: SubscriptionStatus | null, overrides: Partial<SubscriptionState> = {}) =>
    accountView(user(status, overrides), policy, now, ORGANIZATION).status;

  test('none, active, canceled at period end: its subscription, its members keep the tier', () => {
    assert.deepEqual(org(null), ['Your organisation has no subscription yet.']);
    assert.deepEqual(org('active'), [
      "Your organisation's team subscription is active until 2026-07-01 00:00 UTC, then renews.",
    ]);
    assert.deepEqual(org('active', { cancelAtPeriodEnd: true }), [
      "Your organisation's team subscription is canceled at the end of its period: its members keep team until 2026-07-01 00:00 UTC, then free.",
    ]);
  });

  test('past_due and trialing: a manager acts, its members keep or lose the tier', () => {
    assert.deepEqual(org('past_due', { paymentFailedAt: new Date(now.getTime() - 2 * DAY) }), [
      "The last payment for your organisation's team subscription failed on 2026-06-13 12:00 UTC.",
      'Its members keep team during the grace period of 7 days, until 2026-06-20 12:00 UTC; after that free, unless a payment goes through. The provider retries it; a manager can update the card in the billing portal.',
    ]);
    assert.match(
      org('past_due', { paymentFailedAt: new Date(now.getTime() - 9 * DAY) })[1]!,
      /: its members are on free until a payment goes through\. A manager can update the card in the billing portal\.$/,
    );
    assert.deepEqual(org('trialing', { trialEnd: new Date('2026-06-29T12:00:00Z') }), [
      "Your organisation's team trial runs until 2026-06-29 12:00 UTC.",
      'Then the team subscription starts and the card given at checkout is charged, unless a manager cancels before.',
    ]);
  });
});
