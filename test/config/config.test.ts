// loadConfig(env): the documented defaults, and every bad or inconsistent setting refused with a
// line that names the variable, one per variable at fault, so the service never starts
// half-configured. The last test runs the real server process to show that line is all an operator
// sees.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { describe, test } from 'node:test';
import {
  ConfigError,
  DEV_IDP_AUDIENCE,
  loadConfig,
  SIMULATOR_API_KEY,
  SIMULATOR_WEBHOOK_SECRET,
} from '../../src/config.ts';
import { assertRefused } from '../helpers/config-refusal.ts';
import { nodeArgs } from '../helpers/entry.ts';

type Env = Record<string, string>;

/** A complete production setting, to which one variable at a time is broken. */
const PRODUCTION: Env = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://billing@db.internal/billing',
  IDP_ISSUER: 'https://tenant.auth0.example/',
  IDP_AUDIENCE: 'api://billing',
  PAYMENTS_API_KEY: 'sk_live_abc123',
  PAYMENTS_WEBHOOK_SECRET: 'whsec_abc123',
  BILLING_PRICES: 'pro=price_123,team=price_456',
  APP_URL: 'https://app.example.com',
};

describe('configuration', () => {
  test('defaults: local, embedded database, development identity provider and payment simulator', () => {
    const config = loadConfig({ DATA_DIR: '/tmp/billing-data' });
    assert.equal(config.nodeEnv, 'development');
    assert.equal(config.port, 8000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.logLevel, 'info');
    assert.deepEqual(config.database, {
      kind: 'embedded',
      dataDir: '/tmp/billing-data',
      poolSize: 10,
    });
    assert.deepEqual(config.identity, {
      kind: 'dev',
      audience: DEV_IDP_AUDIENCE,
      emailClaim: 'email',
    });
    assert.equal(config.payments.kind, 'simulator');
    assert.equal(config.payments.apiKey, SIMULATOR_API_KEY);
    assert.deepEqual(config.webhookSecrets, [SIMULATOR_WEBHOOK_SECRET]);
    assert.deepEqual(
      [...config.prices],
      [
        ['pro', 'price_sim_pro'],
        ['team', 'price_sim_team'],
      ],
    );
    assert.deepEqual(
      config.catalog.map(({ tier, interval, price }) => `${tier}@${interval}=${price}`),
      [
        'pro@month=price_sim_pro',
        'pro@year=price_sim_pro_year',
        'team@month=price_sim_team',
        'team@year=price_sim_team_year',
      ],
    );
    assert.equal(config.defaultPlan, 'pro');
    assert.equal(config.appUrl, 'http://127.0.0.1:8000');
    assert.deepEqual(config.allowedOrigins, ['http://127.0.0.1:8000']);
    assert.equal(config.webConcurrency, 1);
    assert.equal(config.graceDays, 7);
    assert.equal(config.reconcileEveryMs, null);
    assert.deepEqual(config.retentionDays, { events: 35, failures: 30 });
    assert.ok(Object.isFrozen(config));
  });

  test('the reconciliation interval takes s, m, h or d; the retention ages are days', () => {
    const every = (value: string) =>
      loadConfig({ BILLING_RECONCILE_INTERVAL: value }).reconcileEveryMs;
    assert.deepEqual(
      ['10s', '30m', '6h', '1d', '30d'].map(every),
      [10_000, 1_800_000, 21_600_000, 86_400_000, 2_592_000_000],
    );
    const config = loadConfig({
      WEBHOOK_EVENT_RETENTION_DAYS: '31',
      WEBHOOK_FAILURE_RETENTION_DAYS: '1',
    });
    assert.deepEqual(config.retentionDays, { events: 31, failures: 1 });
  });

  test('DATA_DIR defaults to ./.data, and memory:// is PGlite in memory', () => {
    assert.deepEqual(loadConfig({}).database, {
      kind: 'embedded',
      dataDir: resolve('.data'),
      poolSize: 10,
    });
    assert.deepEqual(loadConfig({ DATABASE_URL: 'memory://' }).database, { kind: 'pglite' });
  });

  test('a complete production setting is accepted as given', () => {
    const config = loadConfig({
      ...PRODUCTION,
      IDP_EMAIL_CLAIM: 'https://example.com/email',
      BILLING_PRICES: 'team=price_456,pro=price_123',
      BILLING_DEFAULT_PLAN: 'pro',
      WEB_CONCURRENCY: '4',
    });
    assert.deepEqual(config.database, {
      kind: 'postgres',
      url: PRODUCTION.DATABASE_URL,
      poolSize: 10,
    });
    assert.deepEqual(config.identity, {
      kind: 'oidc',
      issuer: PRODUCTION.IDP_ISSUER,
      audience: 'api://billing',
      jwksUrl: null,
      emailClaim: 'https://example.com/email',
    });
    assert.deepEqual(config.payments, {
      kind: 'stripe',
      apiKey: 'sk_live_abc123',
      apiBase: null,
      livemode: true,
    });
    assert.equal(config.defaultPlan, 'pro');
    assert.deepEqual(config.allowedOrigins, ['https://app.example.com']);
    assert.equal(config.webConcurrency, 4);
  });

  test('the default plan is the first tier of BILLING_PRICES; allowed origins and webhook secrets are lists', () => {
    const config = loadConfig({
      BILLING_PRICES: 'team=price_456, pro=price_123',
      BILLING_ALLOWED_ORIGINS: 'https://app.example.com, https://admin.example.com/',
      PAYMENTS_WEBHOOK_SECRET: 'whsec_new, whsec_old',
    });
    assert.equal(config.defaultPlan, 'team');
    assert.deepEqual(config.allowedOrigins, [
      'https://app.example.com',
      'https://admin.example.com',
    ]);
    assert.deepEqual(config.webhookSecrets, ['whsec_new', 'whsec_old']);
  });

  const refusals: [variable: string, env: Env][] = [
    ['PORT', { PORT: 'abc' }],
    ['PORT', { PORT: '70000' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://db/billing' }],
    ['IDP_ISSUER', { IDP_ISSUER: 'not a url', IDP_AUDIENCE: 'api://billing' }],
    ['IDP_AUDIENCE', { IDP_ISSUER: 'https://issuer.example' }],
    ['IDP_JWKS_URL', { IDP_JWKS_URL: 'https://issuer.example/jwks.json' }],
    [
      'IDP_JWKS_URL',
      {
        IDP_ISSUER: 'https://issuer.example',
        IDP_AUDIENCE: 'api://billing',
        IDP_JWKS_URL: 'file:///etc/jwks.json',
      },
    ],
    [
      'PAYMENTS_API_KEY',
      {
        PAYMENTS_API_KEY: 'pk_test_publishable',
        BILLING_PRICES: 'pro=price_1',
        PAYMENTS_WEBHOOK_SECRET: 'whsec_1',
      },
    ],
    ['PAYMENTS_WEBHOOK_SECRET', { PAYMENTS_WEBHOOK_SECRET: 'secret' }],
    ['PAYMENTS_WEBHOOK_SECRET', { PAYMENTS_WEBHOOK_SECRET: 'whsec_1,nope' }],
    ['PAYMENTS_WEBHOOK_SECRET', { PAYMENTS_API_KEY: 'sk_test_abc', BILLING_PRICES: 'pro=price_1' }],
    ['BILLING_PRICES', { PAYMENTS_API_KEY: 'sk_test_abc', PAYMENTS_WEBHOOK_SECRET: 'whsec_1' }],
    ['BILLING_PRICES', { BILLING_PRICES: 'pro' }],
    ['BILLING_PRICES', { BILLING_PRICES: 'pro=123' }],
    ['BILLING_PRICES', { BILLING_PRICES: 'pro=price_1,pro=price_2' }],
    ['BILLING_PRICES', { BILLING_PRICES: 'free=price_1' }],
    ['BILLING_DEFAULT_PLAN', { BILLING_DEFAULT_PLAN: 'enterprise' }],
    ['BILLING_DEFAULT_PLAN', { BILLING_DEFAULT_PLAN: 'free' }],
    ['APP_URL', { APP_URL: 'app.example.com' }],
    ['APP_URL', { APP_URL: 'ftp://app.example.com' }],
    ['BILLING_ALLOWED_ORIGINS', { BILLING_ALLOWED_ORIGINS: 'https://app.example.com/billing' }],
    ['BILLING_ALLOWED_ORIGINS', { BILLING_ALLOWED_ORIGINS: 'javascript:alert(1)' }],
    ['WEB_CONCURRENCY', { WEB_CONCURRENCY: '2', DATABASE_URL: 'memory://' }],
    ['WEB_CONCURRENCY', { WEB_CONCURRENCY: '0', DATABASE_URL: 'postgres://db/billing' }],
    ['BILLING_GRACE_DAYS', { BILLING_GRACE_DAYS: 'a week' }],
    ['BILLING_GRACE_DAYS', { BILLING_GRACE_DAYS: '-1' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'verbose' }],
    ['NODE_ENV', { NODE_ENV: 'staging' }],
    ['HTTP_REQUEST_TIMEOUT_MS', { HTTP_REQUEST_TIMEOUT_MS: '0' }],
    ['METRICS_PORT', { METRICS_PORT: 'nine' }],
    ['METRICS_HOST', { METRICS_HOST: '0.0.0.0' }],
    ['METRICS_TOKEN', { METRICS_TOKEN: 'short' }],
    ['BILLING_RECONCILE_INTERVAL', { BILLING_RECONCILE_INTERVAL: '6' }],
    ['BILLING_RECONCILE_INTERVAL', { BILLING_RECONCILE_INTERVAL: '5s' }],
    ['BILLING_RECONCILE_INTERVAL', { BILLING_RECONCILE_INTERVAL: '1w' }],
    ['BILLING_RECONCILE_INTERVAL', { BILLING_RECONCILE_INTERVAL: '31d' }],
    // A resend within Stripe's 30 days must still find the record: a duplicate, not a new event.
    ['WEBHOOK_EVENT_RETENTION_DAYS', { WEBHOOK_EVENT_RETENTION_DAYS: '30' }],
    ['WEBHOOK_EVENT_RETENTION_DAYS', { WEBHOOK_EVENT_RETENTION_DAYS: 'forever' }],
    ['WEBHOOK_FAILURE_RETENTION_DAYS', { WEBHOOK_FAILURE_RETENTION_DAYS: '0' }],
  ];
  for (const [variable, env] of refusals) {
    test(`${variable} is refused: ${JSON.stringify(env)}`, () => assertRefused(env, variable));
  }

  test('a value with a line break is still reported on one line', () => {
    assertRefused({ PORT: '80\n80' }, 'PORT');
    assertRefused({ BILLING_PRICES: 'pro=price_1\nteam' }, 'BILLING_PRICES');
  });

  test('every variable at fault is named at once, one line each', () => {
    assert.throws(
      () => loadConfig({ PORT: 'abc', DATABASE_URL: 'garbage', LOG_LEVEL: 'loud' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
        const named = error.message
          .split('\n')
          .map((line) => /^Invalid configuration: (\w+) /.exec(line)?.[1]);
        assert.deepEqual(named.sort(), ['DATABASE_URL', 'LOG_LEVEL', 'PORT'], error.message);
        return true;
      },
    );
  });

  test('a variable refused alone is not refused again by a rule that reads it', () => {
    const once: [variable: string, env: Env][] = [
      ['METRICS_PORT', { METRICS_PORT: 'nine', METRICS_HOST: '0.0.0.0' }],
      ['IDP_ISSUER', { IDP_ISSUER: 'not a url', IDP_JWKS_URL: 'https://issuer.example/jwks' }],
      ['DATABASE_URL', { DATABASE_URL: 'mysql://db/billing', WEB_CONCURRENCY: '2' }],
      [
        'BILLING_PRICES',
        {
          BILLING_PRICES: 'pro=price_1,pro=price_2',
          BILLING_DEFAULT_PLAN: 'team',
          BILLING_TRIAL_DAYS: 'team=3',
        },
      ],
    ];
    for (const [variable, env] of once) assertRefused(env, variable);
  });

  test("LOG_LEVEL: the caller's default when unset (the CLI's warn), the environment's when set", () => {
    assert.equal(loadConfig({}, { LOG_LEVEL: 'warn' }).logLevel, 'warn');
    assert.equal(loadConfig({ LOG_LEVEL: 'debug' }, { LOG_LEVEL: 'warn' }).logLevel, 'debug');
  });

  test('NODE_ENV=production refuses the development identity provider', () => {
    const { IDP_ISSUER: _issuer, IDP_AUDIENCE: _audience, ...withoutIssuer } = PRODUCTION;
    assertRefused(withoutIssuer, 'IDP_ISSUER');
  });

  test('NODE_ENV=production refuses the payment simulator', () => {
    const { PAYMENTS_API_KEY: _key, PAYMENTS_WEBHOOK_SECRET: _secret, ...withoutKey } = PRODUCTION;
    assertRefused(withoutKey, 'PAYMENTS_API_KEY');
  });

  test("NODE_ENV=production refuses the simulator's published webhook secret, alone or in a rotation list", () => {
    assertRefused(
      { ...PRODUCTION, PAYMENTS_WEBHOOK_SECRET: SIMULATOR_WEBHOOK_SECRET },
      'PAYMENTS_WEBHOOK_SECRET',
    );
    assertRefused(
      { ...PRODUCTION, PAYMENTS_WEBHOOK_SECRET: `whsec_abc123,${SIMULATOR_WEBHOOK_SECRET}` },
      'PAYMENTS_WEBHOOK_SECRET',
    );
  });

  test('NODE_ENV=production refuses the in-memory database', () => {
    assertRefused({ ...PRODUCTION, DATABASE_URL: 'memory://' }, 'DATABASE_URL');
  });

  test('the server refuses to start on a bad PORT with one line on stderr and a non-zero exit', async () => {
    const child = spawn(process.execPath, nodeArgs('server'), {
      env: { PATH: process.env.PATH, PORT: 'abc' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const [code] = await once(child, 'exit');
    assert.notEqual(code, 0);
    const lines = stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, stderr);
    assert.match(lines[0]!, /^Invalid configuration: PORT\b/);
  });
});
