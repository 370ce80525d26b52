-- Users are keyed by the identity provider's subject; `id` is our own.
CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  idp_id text NOT NULL UNIQUE,
  email text NOT NULL,
  plan text,
  payments_customer_id text UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
