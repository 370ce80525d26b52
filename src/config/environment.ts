// The environment, described once: each variable's kind, bounds, default and meaning. What one
// variable cannot say alone (production refusals, variables that need each other) is in rules.ts;
// docs/configuration.md's table is checked against this schema (test/config/documented.test.ts).
import Type from 'typebox';
import {
  claimPath,
  duration,
  flag,
  endpointUrl,
  httpUrl,
  list,
  oneOf,
  origins,
  port,
  text,
  whole,
  eventSecrets,
} from './kinds.ts';
import { trialEntries } from './lists.ts';

const TRIAL_DAYS = { min: 1, max: 730 };
const TRIAL_ENTRY = '[^=,\\s]+\\s*=\\s*\\d+';

export const ENVIRONMENT = Type.Object({
  PORT: port({ default: 8000, description: 'the port the API listens on' }),
  HOST: text({ default: '127.0.0.1', description: 'the address the API listens on' }),
  NODE_ENV: oneOf(['development', 'test', 'production'], {
    default: 'development',
    description: 'production refuses the embedded identity provider, simulator and memory://',
  }),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    default: 'info',
    description: 'the least severe log line written',
  }),
  DATA_DIR: text({ default: './.data', description: 'what the service keeps on this machine' }),
  DATABASE_URL: Type.Optional(
    text({
      pattern: '^(?:memory://$|postgres(?:ql)?://[^/])',
      problem: 'must be postgres://..., postgresql://... or memory://',
      secret: true,
      description: 'that PostgreSQL, or PGlite in memory; unset: the embedded PostgreSQL',
    }),
  ),
  DATABASE_POOL_SIZE: whole(1, 500, {
    default: 10,
    description: 'PostgreSQL connections per process',
  }),
  DATABASE_PREPARED_STATEMENTS: Type.Optional(
    flag({
      description: 'named statements always, or never; unset: named until a pooler refuses them',
    }),
  ),
  IDP_ISSUER: Type.Optional(
    httpUrl({ description: `the tokens' iss; unset: the development identity provider` }),
  ),
  IDP_AUDIENCE: Type.Optional(text({ description: `the tokens' aud` })),
  IDP_JWKS_URL: Type.Optional(
    httpUrl({ description: 'where signing keys are fetched; unset: OIDC discovery' }),
  ),
  IDP_EMAIL_CLAIM: text({ default: 'email', description: 'the claim holding the e-mail' }),
  IDP_ORG_CLAIM: Type.Optional(
    claimPath({ description: "where the token names the caller's organisation" }),
  ),
  IDP_ORG_ROLE_CLAIM: Type.Optional(
    claimPath({ description: "where the token holds the caller's role(s) in that organisation" }),
  ),
  PAYMENTS_API_KEY: Type.Optional(
    text({
      pattern: '^(sk|rk)_(test|live)_[A-Za-z0-9_]+$',
      problem: 'must be a secret or restricted key (sk_test_..., sk_live_..., rk_...)',
      secret: true,
      description: 'a Stripe secret or restricted key; unset: the payment simulator',
    }),
  ),
  PAYMENTS_API_BASE: Type.Optional(
    httpUrl({ description: 'a Stripe-compatible API; unset: Stripe' }),
  ),
  PAYMENTS_WEBHOOK_SECRET: Type.Optional(
    list(Type.String({ pattern: '^whsec_\\S+$' }), {
      problem: 'must be one or more comma-separated whsec_... secrets',
      secret: true,
      description: 'webhook signing secrets, several during a rotation',
    }),
  ),
  PAYMENTS_SIMULATOR_PORT: port({
    default: 12111,
    description: 'where the payment simulator listens',
  }),
  // Loopback whatever HOST says: the dashboard shows every customer's e-mail and cancel buttons.
  PAYMENTS_SIMULATOR_HOST: text({
    default: '127.0.0.1',
    description: 'where the payment simulator listens',
  }),
  BILLING_PRICES: Type.Optional(
    list(
      Type.String({ pattern: '^[a-z][a-z0-9_-]*(@(month|year))?\\s*=\\s*price_[A-Za-z0-9_]+$' }),
      {
        problem: 'must look like "pro=price_123,pro@year=price_124,team=price_456"',
        description: 'the tiers for sale and their price ids, in order; @year a yearly price',
      },
    ),
  ),
  BILLING_DEFAULT_INTERVAL: oneOf(['month', 'year'], {
    default: 'month',
    description: 'the interval a checkout sells when the tier has a price at both',
  }),
  BILLING_DEFAULT_PLAN: Type.Optional(text({ description: 'the plan a user without one is sold' })),
  BILLING_GRACE_DAYS: whole(0, 365, { default: 7, description: 'days past_due keeps its tier' }),
  BILLING_TRIAL_DAYS: Type.Optional(
    Type.Refine(
      text({
        pattern: `^(\\d+|${TRIAL_ENTRY}(\\s*,\\s*${TRIAL_ENTRY})*)$`,
        problem: `must be days from ${TRIAL_DAYS.min} to ${TRIAL_DAYS.max}, as "14" or "pro=14,team=7"`,
        description: 'days of trial a checkout offers, to every tier or per tier',
      }),
      (value) =>
        trialEntries(value).every(({ days }) => days >= TRIAL_DAYS.min && days <= TRIAL_DAYS.max),
    ),
  ),
  BILLING_TRIAL_REQUIRES_CARD: flag({ default: true, description: 'a trial collects a card' }),
  BILLING_ALLOW_PROMOTION_CODES: flag({ default: false, description: 'checkouts take codes' }),
  BILLING_AUTOMATIC_TAX: flag({ default: false, description: 'Stripe Tax on every checkout' }),
  BILLING_ENTITLEMENTS_FILE: Type.Optional(
    text({ description: 'a JSON file of the features and limits of each tier' }),
  ),
  APP_URL: Type.Optional(
    httpUrl({ description: `the front end's URL; unset: http://127.0.0.1:$PORT` }),
  ),
  BILLING_ALLOWED_ORIGINS: Type.Optional(
    origins({ description: 'origins a client may return to from checkout and the portal' }),
  ),
  BILLING_CHECKOUT_RATE_LIMIT: whole(1, 10_000, {
    default: 20,
    description: 'checkouts one user may start per minute, counted across every instance',
  }),
  BILLING_ORG_MANAGER_ROLES: list(Type.String({ pattern: '^[\\x21-\\x7e]{1,255}$' }), {
    default: ['owner', 'admin'],
    problem: 'must list role names separated by commas (printable characters, no spaces)',
    description: "roles that may buy and manage an organisation's subscription",
  }),
  BILLING_ORG_PLAN: Type.Optional(
    text({ description: "the plan an organisation's checkout sells" }),
  ),
  BILLING_SEATS: oneOf(['active', 'reported', 'flat'], {
    default: 'active',
    description: "what an organisation's subscription quantity follows",
  }),
  BILLING_SEAT_ACTIVE_DAYS: whole(1, 365, {
    default: 30,
    description: 'days a member counts as active after their last request naming the organisation',
  }),
  BILLING_SEAT_MINIMUM: whole(1, 10_000, {
    default: 1,
    description: 'the lowest quantity an organisation is billed for',
  }),
  BILLING_SERVICE_SCOPE: text({
    default: 'billing:seats',
    pattern: '^[\\x21-\\x7e]{1,255}$',
    problem: 'must be one scope: printable characters, no spaces',
    description: 'the scope a token needs to report seat counts',
  }),
  BILLING_SERVICE_CLIENTS: Type.Optional(
    text({
      pattern: '^ *[\\x21-\\x2b\\x2d-\\x7e]{1,255} *(, *[\\x21-\\x2b\\x2d-\\x7e]{1,255} *)*$',
      problem: 'must be client ids separated by commas',
      description: "the OAuth clients whose tokens are the application's backend",
    }),
  ),
  BILLING_CREDIT_PACKS: Type.Optional(
    list(
      Type.String({ pattern: '^[a-z0-9_-]{1,32}\\s*=\\s*price_[A-Za-z0-9_]+\\s*:\\s*\\d{1,8}$' }),
      {
        problem: 'must look like "small=price_123:500,large=price_456:2500"',
        description: 'the credit packs for sale: name, one-time price id, credits added',
      },
    ),
  ),
  BILLING_CREDITS_SCOPE: text({
    default: 'billing:credits',
    pattern: '^[\\x21-\\x7e]{1,255}$',
    problem: 'must be one scope: printable characters, no spaces',
    description: 'the scope a token needs to spend credits',
  }),
  APP_WEBHOOK_URL: Type.Optional(
    endpointUrl({ description: "the application's endpoint for outbound events" }),
  ),
  APP_WEBHOOK_SECRET: Type.Optional(
    eventSecrets({
      description: 'secrets outbound events are signed with, several during a rotation',
    }),
  ),
  BILLING_RECONCILE_INTERVAL: Type.Optional(
    duration('10s', '30d', { description: 'how often the service reconciles with the provider' }),
  ),
  // Stripe resends an event for 30 days after it was created: its record must outlive that, so a
  // resend is still answered as a duplicate.
  WEBHOOK_EVENT_RETENTION_DAYS: whole(31, 3650, {
    default: 35,
    description: `days an event's record is kept`,
  }),
  WEBHOOK_FAILURE_RETENTION_DAYS: whole(1, 3650, {
    default: 30,
    description: `days a failure's record is kept`,
  }),
  WEB_CONCURRENCY: whole(1, 64, { default: 1, description: 'worker processes on one machine' }),
  CORS_ALLOWED_ORIGINS: Type.Optional(
    origins({ description: 'origins browsers may call the API from; unset: CORS off' }),
  ),
  HTTP_REQUEST_TIMEOUT_MS: whole(1_000, 300_000, {
    default: 10_000,
    description: 'the longest a client may take to send a whole request',
  }),
  METRICS_PORT: Type.Optional(port({ description: 'a listener of its own for /metrics' })),
  METRICS_HOST: Type.Optional(
    text({ description: `where /metrics' own listener listens; unset: 127.0.0.1` }),
  ),
  METRICS_TOKEN: Type.Optional(
    text({
      pattern: '^[\\x21-\\x7e]{16,}$',
      problem: 'must be at least 16 printable characters without spaces',
      secret: true,
      description: 'the bearer token /metrics asks for',
    }),
  ),
});

/** The environment once checked, defaults filled in. */
export type Settings = Type.Static<typeof ENVIRONMENT>;
export type Variable = keyof Settings;
