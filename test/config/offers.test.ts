// The offers in the configuration: BILLING_TRIAL_DAYS, BILLING_TRIAL_REQUIRES_CARD,
// BILLING_ALLOW_PROMOTION_CODES, BILLING_AUTOMATIC_TAX and BILLING_ENTITLEMENTS_FILE. Their
// defaults, and every bad value refused with one line naming the variable (and, for the file, the
// JSON path at fault). The last test runs the real server: that line is all an operator sees.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { EXAMPLE_ENTITLEMENTS_FILE, loadConfig } from '../../src/config.ts';
import { refusal } from '../helpers/config-refusal.ts';
import { nodeArgs } from '../helpers/entry.ts';

type Env = Record<string, string>;

const STRIPE: Env = {
  DATA_DIR: '/tmp/billing-data',
  PAYMENTS_API_KEY: 'sk_test_abc123',
  PAYMENTS_WEBHOOK_SECRET: 'whsec_abc123',
  BILLING_PRICES: 'pro=price_123,team=price_456',
};

const dir = mkdtempSync(join(tmpdir(), 'entitlements-'));
let files = 0;
/** A file holding `content` (JSON-encoded unless a string), for BILLING_ENTITLEMENTS_FILE. */
function file(content: unknown): string {
  const path = join(dir, `entitlements-${files++}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe('configuration: offers and entitlements', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('defaults: no trials, a card for any trial, no promotion codes, no tax, no entitlements with Stripe', () => {
    const config = loadConfig(STRIPE);
    assert.deepEqual([...config.trialDays], []);
    assert.equal(config.trialRequiresCard, true);
    assert.equal(config.allowPromotionCodes, false);
    assert.equal(config.automaticTax, false);
    assert.deepEqual([...config.entitlements], []);
    assert.equal(config.entitlementsFile, null);
  });

  test('the embedded defaults (the simulator and its own prices) use the example file in the repository', () => {
    const config = loadConfig({ DATA_DIR: '/tmp/billing-data' });
    assert.equal(config.entitlementsFile, EXAMPLE_ENTITLEMENTS_FILE);
    assert.deepEqual(config.entitlements.get('pro'), {
      features: ['core', 'export', 'api'],
      limits: { projects: 20, seats: 5 },
      credits: 1000,
    });
    assert.deepEqual(config.entitlements.get('team')?.limits, { projects: null, seats: null });
    // Other prices are other tiers: the example would not fit them.
    assert.equal(
      loadConfig({ DATA_DIR: '/tmp/d', BILLING_PRICES: 'basic=price_1' }).entitlementsFile,
      null,
    );
  });

  test('BILLING_TRIAL_DAYS: every plan, or per plan', () => {
    assert.deepEqual(
      [...loadConfig({ ...STRIPE, BILLING_TRIAL_DAYS: '14' }).trialDays],
      [
        ['pro', 14],
        ['team', 14],
      ],
    );
    assert.deepEqual(
      [...loadConfig({ ...STRIPE, BILLING_TRIAL_DAYS: 'team=7, pro = 730' }).trialDays],
      [
        ['team', 7],
        ['pro', 730],
      ],
    );
    assert.deepEqual(
      [...loadConfig({ ...STRIPE, BILLING_TRIAL_DAYS: 'pro=1' }).trialDays],
      [['pro', 1]],
    );
  });

  test('BILLING_TRIAL_DAYS: out of 1..730, not a number, an unknown or repeated tier, a bad list', () => {
    for (const value of ['0', '731', '-3', '1.5', 'two', 'pro=0', 'pro=', 'pro=14,', '=14'])
      assert.match(
        refusal({ ...STRIPE, BILLING_TRIAL_DAYS: value }),
        /^Invalid configuration: BILLING_TRIAL_DAYS /,
        value,
      );
    assert.match(
      refusal({ ...STRIPE, BILLING_TRIAL_DAYS: 'gold=14' }),
      /BILLING_TRIAL_DAYS names "gold", which is not a tier of BILLING_PRICES \(pro, team\)/,
    );
    assert.match(
      refusal({ ...STRIPE, BILLING_TRIAL_DAYS: 'pro=14,pro=7' }),
      /BILLING_TRIAL_DAYS names tier "pro" twice/,
    );
  });

  test('the three switches take true or false, nothing else', () => {
    const on = loadConfig({
      ...STRIPE,
      BILLING_TRIAL_REQUIRES_CARD: 'false',
      BILLING_ALLOW_PROMOTION_CODES: 'true',
      BILLING_AUTOMATIC_TAX: 'true',
    });
    assert.deepEqual(
      [on.trialRequiresCard, on.allowPromotionCodes, on.automaticTax],
      [false, true, true],
    );
    for (const variable of [
      'BILLING_TRIAL_REQUIRES_CARD',
      'BILLING_ALLOW_PROMOTION_CODES',
      'BILLING_AUTOMATIC_TAX',
    ])
      for (const value of ['yes', '1', 'TRUE', 'on'])
        assert.equal(
          refusal({ ...STRIPE, [variable]: value }),
          `Invalid configuration: ${variable} must be true or false, got "${value}"`,
        );
  });

  test('BILLING_ENTITLEMENTS_FILE: features, limits and credits per tier; a tier left out has none', () => {
    const config = loadConfig({
      ...STRIPE,
      BILLING_ENTITLEMENTS_FILE: file({
        free: { features: [] },
        pro: {
          features: ['export', 'api.v2'],
          limits: { projects: 20, seats: null },
          credits: 1000,
        },
      }),
    });
    assert.deepEqual(config.entitlements.get('free'), { features: [], limits: {}, credits: 0 });
    assert.deepEqual(config.entitlements.get('pro'), {
      features: ['export', 'api.v2'],
      limits: { projects: 20, seats: null },
      credits: 1000,
    });
    assert.equal(config.entitlements.has('team'), false);
    // A limit named __proto__ is a limit like any other, not the object's prototype.
    const odd = loadConfig({
      ...STRIPE,
      BILLING_ENTITLEMENTS_FILE: file('{"pro": {"limits": {"__proto__": 5}}}'),
    }).entitlements.get('pro')!.limits;
    assert.equal(Object.getOwnPropertyDescriptor(odd, '__proto__')?.value, 5);
    assert.equal(Object.getPrototypeOf(odd), Object.prototype);
  });

  test('BILLING_ENTITLEMENTS_FILE: each problem in one line naming the variable and the JSON path', () => {
    const cases: [unknown, string][] = [
      ['{"pro": {', '$ is not valid JSON: '],
      ['[]', '$ must be an object of tiers'],
      [{ gold: {} }, '$.gold is not a tier: the tiers are free, pro, team'],
      [{ 'pro-max': {} }, '$["pro-max"] is not a tier'],
      [{ pro: [] }, '$.pro must be an object with "features", "limits" and "credits"'],
      [{ pro: { credits: -1 } }, '$.pro.credits must be the credits the tier grants each period'],
      [{ pro: { credits: 10_000_001 } }, '$.pro.credits must be the credits the tier grants'],
      [{ pro: { credits: '5' } }, '$.pro.credits must be the credits the tier grants'],
      [{ pro: { feature: [] } }, '$.pro.feature is not allowed'],
      [{ pro: { features: 'export' } }, '$.pro.features must be an array of feature names'],
      [{ pro: { features: ['Export'] } }, '$.pro.features[0] must be 1 to 64 characters'],
      [{ pro: { features: ['ok', 'x'.repeat(65)] } }, '$.pro.features[1] must be 1 to 64'],
      [{ pro: { features: ['a', 'a'] } }, '$.pro.features[1] names "a" twice'],
      [{ pro: { features: [5] } }, '$.pro.features[0] must be 1 to 64 characters'],
      [{ pro: { limits: [] } }, '$.pro.limits must be an object of limits'],
      [
        { pro: { limits: { projects: -1 } } },
        '$.pro.limits.projects must be a non-negative integer or null',
      ],
      [
        { pro: { limits: { projects: 1.5 } } },
        '$.pro.limits.projects must be a non-negative integer or null',
      ],
      [
        { pro: { limits: { projects: '20' } } },
        '$.pro.limits.projects must be a non-negative integer or null',
      ],
      [
        { pro: { limits: { projects: 1e300 } } },
        '$.pro.limits.projects must be a non-negative integer or null',
      ],
      [
        { free: { limits: { 'API calls': 5 } } },
        '$.free.limits["API calls"] is not a valid limit name',
      ],
    ];
    for (const [content, message] of cases) {
      const line = refusal({ ...STRIPE, BILLING_ENTITLEMENTS_FILE: file(content) });
      assert.ok(
        line.startsWith(`Invalid configuration: BILLING_ENTITLEMENTS_FILE ${message}`),
        `${JSON.stringify(content)} -> ${line}`,
      );
    }
  });

  test('BILLING_ENTITLEMENTS_FILE: a file that cannot be read is named', () => {
    const missing = join(dir, 'missing.json');
    assert.equal(
      refusal({ ...STRIPE, BILLING_ENTITLEMENTS_FILE: missing }),
      `Invalid configuration: BILLING_ENTITLEMENTS_FILE cannot be read (ENOENT): ${JSON.stringify(missing)}`,
    );
    assert.match(
      refusal({ ...STRIPE, BILLING_ENTITLEMENTS_FILE: dir }),
      /^Invalid configuration: BILLING_ENTITLEMENTS_FILE is not a regular file \(a directory\)/,
    );
  });

  test('the server refuses to start on a bad entitlements file with one line on stderr', async () => {
    const child = spawn(process.execPath, nodeArgs('server'), {
      env: {
        PATH: process.env.PATH,
        BILLING_ENTITLEMENTS_FILE: file({ pro: { limits: { projects: -1 } } }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const [code] = await once(child, 'exit');
    assert.notEqual(code, 0);
    assert.deepEqual(stderr.trimEnd().split('\n'), [
      'Invalid configuration: BILLING_ENTITLEMENTS_FILE $.pro.limits.projects must be a non-negative integer or null',
    ]);
  });
});
