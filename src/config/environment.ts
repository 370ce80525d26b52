// The environment, described once: each variable's kind, bounds, default and the variables it
// needs. docs/configuration.md says what each means (test/config/documented.test.ts holds the two
// together); rules.ts has what a keyword cannot say.
import Type from 'typebox';
import * as kind from './kinds.ts';
import { trialEntries } from './lists.ts';

const { claimPath, flag, httpUrl, list, oneOf, port, scope, text, whole } = kind;
const optional = Type.Optional;
const TRIAL_ENTRY = '[^=,\\s]+\\s*=\\s*\\d+';
const CLIENT = '[\\x21-\\x2b\\x2d-\\x7e]{1,255}';

export const ENVIRONMENT = Type.Object({
  PORT: port(8000),
  HOST: text({ default: '127.0.0.1' }),
  NODE_ENV: oneOf(['development', 'test', 'production'], 'development'),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  DATA_DIR: text({ default: './.data' }),
  DATABASE_URL: optional(
    text({
      pattern: '^(?:memory://$|postgres(?:ql)?://[^/])',
      problem: 'must be postgres://..., postgresql://... or memory://',
      secret: true,
    }),
  ),
  DATABASE_POOL_SIZE: whole(1, 500, 10),
  DATABASE_PREPARED_STATEMENTS: optional(flag()),
  IDP_ISSUER: optional(httpUrl({ requiredInProduction: 'the development identity provider' })),
  IDP_AUDIENCE: optional(text({ requiredWith: 'IDP_ISSUER' })),
  IDP_JWKS_URL: optional(httpUrl({ needs: 'IDP_ISSUER' })),
  IDP_EMAIL_CLAIM: text({ default: 'email' }),
  IDP_ORG_CLAIM: optional(claimPath()),
  IDP_ORG_ROLE_CLAIM: optional(claimPath()),
  PAYMENTS_API_KEY: optional(
    text({
      pattern: '^(sk|rk)_(test|live)_[A-Za-z0-9_]+$',
      problem: 'must be a secret or restricted key (sk_test_..., sk_live_..., rk_...)',
      secret: true,
      requiredInProduction: 'the payment simulator',
    }),
  ),
  PAYMENTS_API_BASE: optional(httpUrl({ needs: 'PAYMENTS_API_KEY' })),
  PAYMENTS_WEBHOOK_SECRET: optional(
    list(Type.String({ pattern: '^whsec_\\S+$' }), {
      problem: 'must be one or more comma-separated whsec_... secrets',
      secret: true,
      requiredWith: 'PAYMENTS_API_KEY',
    }),
  ),
  PAYMENTS_SIMULATOR_PORT: port(12111),
  // Loopback whatever HOST says: the dashboard shows every customer's e-mail and cancel buttons.
  PAYMENTS_SIMULATOR_HOST: text({ default: '127.0.0.1' }),
  BILLING_PRICES: optional(
    list(
      Type.String({ pattern: '^[a-z][a-z0-9_-]*(@(month|year))?\\s*=\\s*price_[A-Za-z0-9_]+$' }),
      {
        problem: 'must look like "pro=price_123,pro@year=price_124,team=price_456"',
        requiredWith: 'PAYMENTS_API_KEY',
        example: 'pro=price_123',
      },
    ),
  ),
  BILLING_DEFAULT_INTERVAL: oneOf(['month', 'year'], 'month'),
  BILLING_DEFAULT_PLAN: optional(text()),
  BILLING_GRACE_DAYS: whole(0, 365, 7),
  BILLING_TRIAL_DAYS: optional(
    Type.Refine(
      text({
        pattern: `^(\\d+|${TRIAL_ENTRY}(\\s*,\\s*${TRIAL_ENTRY})*)$`,
        problem: 'must be days from 1 to 730, as "14" or "pro=14,team=7"',
      }),
      (value) => trialEntries(value).every(({ days }) => days >= 1 && days <= 730),
    ),
  ),
  BILLING_TRIAL_REQUIRES_CARD: flag(true),
  BILLING_ALLOW_PROMOTION_CODES: flag(false),
  BILLING_AUTOMATIC_TAX: flag(false),
  BILLING_ENTITLEMENTS_FILE: optional(text()),
  APP_URL: optional(httpUrl()),
  BILLING_ALLOWED_ORIGINS: optional(kind.origins()),
  BILLING_CHECKOUT_RATE_LIMIT: whole(1, 10_000, 20),
  BILLING_ORG_MANAGER_ROLES: list(Type.String({ pattern: kind.PRINTABLE }), {
    default: ['owner', 'admin'],
    problem: 'must list role names separated by commas (printable characters, no spaces)',
  }),
  BILLING_ORG_PLAN: optional(text()),
  BILLING_SEATS: oneOf(['active', 'reported', 'flat'], 'active'),
  BILLING_SEAT_ACTIVE_DAYS: whole(1, 365, 30),
  BILLING_SEAT_MINIMUM: whole(1, 10_000, 1),
  BILLING_SERVICE_SCOPE: scope('billing:seats'),
  BILLING_SERVICE_CLIENTS: optional(
    text({
      pattern: `^ *${CLIENT} *(, *${CLIENT} *)*$`,
      problem: 'must be client ids separated by commas',
    }),
  ),
  BILLING_CREDIT_PACKS: optional(
    list(
      Type.String({ pattern: '^[a-z0-9_-]{1,32}\\s*=\\s*price_[A-Za-z0-9_]+\\s*:\\s*\\d{1,8}$' }),
      {
        problem: 'must look like "small=price_123:500,large=price_456:2500"',
      },
    ),
  ),
  BILLING_CREDITS_SCOPE: scope('billing:credits'),
  APP_WEBHOOK_URL: optional(kind.endpointUrl({})),
  APP_WEBHOOK_SECRET: optional(kind.eventSecrets({ requiredWith: 'APP_WEBHOOK_URL' })),
  BILLING_RECONCILE_INTERVAL: optional(kind.duration('10s', '30d')),
  // Stripe resends an event for 30 days: its record outlives that, so a resend is a duplicate.
  WEBHOOK_EVENT_RETENTION_DAYS: whole(31, 3650, 35),
  WEBHOOK_FAILURE_RETENTION_DAYS: whole(1, 3650, 30),
  WEB_CONCURRENCY: whole(1, 64, 1),
  CORS_ALLOWED_ORIGINS: optional(kind.origins()),
  HTTP_REQUEST_TIMEOUT_MS: whole(1_000, 300_000, 10_000),
  METRICS_PORT: optional(port()),
  METRICS_HOST: optional(text({ needs: 'METRICS_PORT' })),
  METRICS_TOKEN: optional(
    text({
      pattern: '^[\\x21-\\x7e]{16,}$',
      problem: 'must be at least 16 printable characters without spaces',
      secret: true,
    }),
  ),
});

/** The environment once checked, defaults filled in. */
export type Settings = Type.Static<typeof ENVIRONMENT>;
export type Variable = keyof Settings;
