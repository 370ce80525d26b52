// BILLING_PRICES with monthly and yearly prices and BILLING_DEFAULT_INTERVAL: every price kept with
// its tier and interval, a checkout selling the default interval where the tier has both, a
// price's tier the same whatever its interval, and each mistake refused in one line naming the
// variable.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { tierPolicy } from '../../src/composition.ts';

const PRICES =
  'pro=price_pm,pro@year=price_py,team@month=price_tm,team@year=price_ty,solo@year=price_sy';

function refusal(env: Record<string, string>): string {
  try {
    loadConfig({ DATA_DIR: '/tmp/d', ...env });
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    assert.doesNotMatch(error.message, /\n/, 'one line');
    return error.message;
  }
  return assert.fail('accepted');
}

describe('monthly and yearly prices', () => {
  test('every price with its tier and interval; a checkout sells the monthly one by default', () => {
    const config = loadConfig({ DATA_DIR: '/tmp/d', BILLING_PRICES: PRICES });
    assert.deepEqual(config.catalog, [
      { tier: 'pro', interval: 'month', price: 'price_pm' },
      { tier: 'pro', interval: 'year', price: 'price_py' },
      { tier: 'team', interval: 'month', price: 'price_tm' },
      { tier: 'team', interval: 'year', price: 'price_ty' },
      { tier: 'solo', interval: 'year', price: 'price_sy' },
    ]);
    assert.equal(config.defaultInterval, 'month');
    assert.deepEqual(
      [...config.prices],
      [
        ['pro', 'price_pm'],
        ['team', 'price_tm'],
        ['solo', 'price_sy'],
      ],
    );
    assert.equal(config.defaultPlan, 'pro');
    const { tierByPrice } = tierPolicy(config);
    assert.deepEqual(
      ['price_pm', 'price_py', 'price_ty', 'price_sy'].map((price) => tierByPrice.get(price)),
      ['pro', 'pro', 'team', 'solo'],
    );
  });

  test('BILLING_DEFAULT_INTERVAL=year: the yearly price where the tier has one', () => {
    const config = loadConfig({
      DATA_DIR: '/tmp/d',
      BILLING_PRICES: 'pro=price_pm,pro@year=price_py,team=price_tm',
      BILLING_DEFAULT_INTERVAL: 'year',
    });
    assert.deepEqual(
      [...config.prices],
      [
        ['pro', 'price_py'],
        ['team', 'price_tm'],
      ],
    );
  });

  test('each mistake in one line naming the variable', () => {
    assert.match(
      refusal({ BILLING_PRICES: 'pro@week=price_1' }),
      /BILLING_PRICES must look like "pro=price_123,pro@year=price_124,team=price_456"/,
    );
    assert.match(
      refusal({ BILLING_PRICES: 'pro=price_1,pro@month=price_2' }),
      /BILLING_PRICES names tier "pro" twice/,
    );
    assert.match(
      refusal({ BILLING_PRICES: 'pro@year=price_1,pro@year=price_2' }),
      /BILLING_PRICES names "pro@year" twice/,
    );
    assert.match(refusal({ BILLING_DEFAULT_INTERVAL: 'weekly' }), /BILLING_DEFAULT_INTERVAL/);
  });
});
