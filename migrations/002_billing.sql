-- Subscription state as last applied from the provider. `event_created` is the `created` of the
-- event (or re-read) that wrote it: the ordering guard compares against it.
CREATE TABLE subscriptions (
  id text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id),
  customer_id text NOT NULL,
  status text NOT NULL,
  price_id text,
  cancel_at_period_end boolean NOT NULL DEFAULT false,
  current_period_end timestamptz,
  payment_failed_at timestamptz,
  created_at timestamptz NOT NULL,
  event_created bigint NOT NULL,
  -- Set when this state was re-read from the provider: events created before it are older.
  synced_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX subscriptions_user_id ON subscriptions (user_id);

-- Checkout sessions we opened, so a second click returns the same open session.
CREATE TABLE checkout_sessions (
  id text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id),
  url text NOT NULL,
  price_id text NOT NULL,
  success_url text NOT NULL,
  cancel_url text NOT NULL,
  status text NOT NULL DEFAULT 'open',
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX checkout_sessions_user_id ON checkout_sessions (user_id, created_at DESC);

-- One row per processed provider event: written in the same transaction as the handler's effects.
CREATE TABLE webhook_events (
  id text PRIMARY KEY,
  type text NOT NULL,
  livemode boolean NOT NULL,
  outcome text NOT NULL,
  event_created timestamptz NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now()
);

-- Failed attempts, written outside the rolled-back transaction so operators see what keeps failing.
CREATE TABLE webhook_failures (
  id bigserial PRIMARY KEY,
  event_id text NOT NULL,
  type text NOT NULL,
  error text NOT NULL,
  failed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_failures_event_id ON webhook_failures (event_id);
