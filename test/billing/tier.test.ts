// The tier function of CONTRACT.md section 4, one case per subscription status.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { tierOf, blocksNewCheckout } from '../../src/domain/billing/tier.ts';
import type { SubscriptionStatus } from '../../src/domain/model/subscriptions.ts';

const policy = {
  tierByPrice: new Map([
    ['price_pro', 'pro'],
    ['price_team', 'team'],
  ]),
  graceDays: 7,
};
const now = new Date('2026-06-15T12:00:00Z');
const DAY = 86_400_000;

function subscription(
  status: SubscriptionStatus,
  overrides: Partial<Parameters<typeof tierOf>[0] & object> = {},
): NonNullable<Parameters<typeof tierOf>[0]> {
  return {
    status,
    priceId: 'price_team',
    cancelAtPeriodEnd: false,
    cancelAt: null,
    currentPeriodEnd: new Date(now.getTime() + 20 * DAY),
    paymentFailedAt: null,
    ...overrides,
  };
}

describe('tierOf', () => {
  test('no subscription -> free', () => assert.equal(tierOf(null, policy, now), 'free'));
  test('active -> the tier of its price', () =>
    assert.equal(tierOf(subscription('active'), policy, now), 'team'));
  test('trialing -> the tier of its price', () =>
    assert.equal(tierOf(subscription('trialing', { priceId: 'price_pro' }), policy, now), 'pro'));
  test('active with a price we do not sell -> free', () =>
    assert.equal(tierOf(subscription('active', { priceId: 'price_other' }), policy, now), 'free'));
  test('past_due within the grace period -> paid tier', () =>
    assert.equal(
      tierOf(
        subscription('past_due', { paymentFailedAt: new Date(now.getTime() - 6 * DAY) }),
        policy,
        now,
      ),
      'team',
    ));
  test('past_due after the grace period -> free', () =>
    assert.equal(
      tierOf(
        subscription('past_due', { paymentFailedAt: new Date(now.getTime() - 8 * DAY) }),
        policy,
        now,
      ),
      'free',
    ));
  test('canceled at period end, period running -> paid', () =>
    assert.equal(tierOf(subscription('active', { cancelAtPeriodEnd: true }), policy, now), 'team'));
  test('canceled at period end, period over -> free', () =>
    assert.equal(
      tierOf(
        subscription('active', {
          cancelAtPeriodEnd: true,
          currentPeriodEnd: new Date(now.getTime() - DAY),
        }),
        policy,
        now,
      ),
      'free',
    ));
  for (const status of [
    'incomplete',
    'incomplete_expired',
    'unpaid',
    'canceled',
    'paused',
  ] as const) {
    test(`${status} -> free`, () =>
      assert.equal(tierOf(subscription(status), policy, now), 'free'));
  }
  test('only active, trialing and past_due block a new checkout', () => {
    const all: SubscriptionStatus[] = [
      'active',
      'trialing',
      'past_due',
      'incomplete',
      'incomplete_expired',
      'unpaid',
      'canceled',
      'paused',
    ];
    assert.deepEqual(
      all.filter((status) => blocksNewCheckout(subscription(status), now)),
      ['active', 'trialing', 'past_due'],
    );
  });
});

// Stripe's flexible billing mode (the default since 2025-09-30.clover) schedules a cancellation at
// the period end with `cancel_at` alone, cancel_at_period_end staying false.
describe('tierOf: a cancellation scheduled with cancel_at', () => {
  const soon = new Date(now.getTime() + DAY);
  const past = new Date(now.getTime() - DAY);
  for (const status of ['active', 'trialing'] as const) {
    test(`${status}, cancel_at ahead -> paid until then`, () =>
      assert.equal(tierOf(subscription(status, { cancelAt: soon }), policy, now), 'team'));
    test(`${status}, cancel_at passed, no deletion event -> free`, () =>
      assert.equal(tierOf(subscription(status, { cancelAt: past }), policy, now), 'free'));
  }
  test('cancel_at before the period end decides, whatever cancel_at_period_end says', () =>
    assert.equal(
      tierOf(subscription('active', { cancelAt: past, cancelAtPeriodEnd: true }), policy, now),
      'free',
    ));
  test('past_due in its grace period, cancel_at passed -> free', () =>
    assert.equal(
      tierOf(
        subscription('past_due', {
          paymentFailedAt: new Date(now.getTime() - DAY),
          cancelAt: past,
        }),
        policy,
        now,
      ),
      'free',
    ));
  test('a subscription past its cancel_at no longer blocks a checkout', () => {
    assert.equal(blocksNewCheckout(subscription('active', { cancelAt: soon }), now), true);
    assert.equal(blocksNewCheckout(subscription('active', { cancelAt: past }), now), false);
    assert.equal(
      blocksNewCheckout(
        subscription('active', { cancelAtPeriodEnd: true, currentPeriodEnd: past }),
        now,
      ),
      false,
    );
  });
});
