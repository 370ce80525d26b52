// APP_WEBHOOK_URL and APP_WEBHOOK_SECRET: where outbound events go and what signs them, each bad
// value refused with one line naming the variable.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { assertRefused } from '../helpers/config-refusal.ts';

const secret = (bytes: number) => `whsec_${randomBytes(bytes).toString('base64')}`;

describe('configuration of outbound events', () => {
  test('unset: development delivers to its own receiver, other environments record nothing', () => {
    assert.deepEqual(loadConfig({}).appEvents, { kind: 'development', secrets: null });
    assert.deepEqual(loadConfig({ NODE_ENV: 'test' }).appEvents, { kind: 'off' });
  });

  test("the application's URL with its secrets, several during a rotation", () => {
    const [a, b] = [secret(32), secret(24)];
    const config = loadConfig({
      NODE_ENV: 'test',
      APP_WEBHOOK_URL: 'https://app.example.com/hooks/billing',
      APP_WEBHOOK_SECRET: `${a}, ${b}`,
    });
    assert.deepEqual(config.appEvents, {
      kind: 'application',
      url: 'https://app.example.com/hooks/billing',
      secrets: [a, b],
    });
  });

  const refusals: [string, Record<string, string>][] = [
    [
      'APP_WEBHOOK_URL',
      { APP_WEBHOOK_URL: 'app.example.com/hooks', APP_WEBHOOK_SECRET: secret(32) },
    ],
    ['APP_WEBHOOK_SECRET', { APP_WEBHOOK_URL: 'https://app.example.com/hooks' }],
    ['APP_WEBHOOK_SECRET', { NODE_ENV: 'test', APP_WEBHOOK_SECRET: secret(32) }],
    [
      'APP_WEBHOOK_SECRET',
      { APP_WEBHOOK_URL: 'http://127.0.0.1/h', APP_WEBHOOK_SECRET: 'whsec_short' },
    ],
    [
      'APP_WEBHOOK_SECRET',
      { APP_WEBHOOK_URL: 'http://127.0.0.1/h', APP_WEBHOOK_SECRET: secret(16) },
    ],
    [
      'APP_WEBHOOK_SECRET',
      { APP_WEBHOOK_URL: 'http://127.0.0.1/h', APP_WEBHOOK_SECRET: secret(65) },
    ],
    [
      'APP_WEBHOOK_SECRET',
      {
        APP_WEBHOOK_URL: 'http://127.0.0.1/h',
        APP_WEBHOOK_SECRET: secret(32).replace('whsec_', ''),
      },
    ],
    [
      'APP_WEBHOOK_SECRET',
      { APP_WEBHOOK_URL: 'http://127.0.0.1/h', APP_WEBHOOK_SECRET: `${secret(32)},whsec_a-b_c` },
    ],
  ];
  for (const [variable, env] of refusals)
    test(`${variable} is refused: ${JSON.stringify(env)}`, () => assertRefused(env, variable));

  const production = {
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://billing@db.internal/billing',
    IDP_ISSUER: 'https://tenant.auth0.example/',
    IDP_AUDIENCE: 'api://billing',
    PAYMENTS_API_KEY: 'sk_live_abc123',
    PAYMENTS_WEBHOOK_SECRET: 'whsec_abc123',
    BILLING_PRICES: 'pro=price_123',
    METRICS_PORT: '9100',
    APP_WEBHOOK_SECRET: secret(32),
  };

  test('production: https, or http to a loopback address only', () => {
    assertRefused(
      { ...production, APP_WEBHOOK_URL: 'http://app.internal/hooks' },
      'APP_WEBHOOK_URL',
    );
    for (const url of [
      'https://app.internal/hooks',
      'http://127.0.0.1:3000/hooks',
      'http://[::1]/h',
    ])
      assert.equal(
        loadConfig({ ...production, APP_WEBHOOK_URL: url }).appEvents.kind,
        'application',
      );
  });
});
