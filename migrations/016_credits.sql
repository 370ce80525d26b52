-- Credits (contract section 14): each subject's balance, the entries that made it, the purchases a
-- refund takes back from, and the answers to spends by idempotency key.
--
-- One row per subject: its one grant (what is left of it, until when) and its purchased credits.
-- Every change locks this row first, so a subject's changes take turns on any instance, and the
-- checks keep the balance at zero or above whatever a caller does. `depleted`: the application was
-- told the balance ran out, and is not told again until it is above zero.
CREATE TABLE credit_balances (
  subject_type text NOT NULL CHECK (subject_type IN ('user', 'organization')),
  subject_id uuid NOT NULL,
  grant_amount bigint NOT NULL DEFAULT 0 CHECK (grant_amount >= 0),
  grant_remaining bigint NOT NULL DEFAULT 0 CHECK (grant_remaining >= 0),
  grant_expires_at timestamptz,
  grant_source text,
  purchased bigint NOT NULL DEFAULT 0 CHECK (purchased >= 0),
  depleted boolean NOT NULL DEFAULT false,
  PRIMARY KEY (subject_type, subject_id)
);

-- The ledger, newest first by id. `source` names what an entry came from (an invoice, a checkout
-- session, a free month) where that must count once: a second entry of the same source is refused.
CREATE TABLE credit_entries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  subject_type text NOT NULL,
  subject_id uuid NOT NULL,
  at timestamptz NOT NULL,
  kind text NOT NULL
    CHECK (kind IN ('grant', 'purchase', 'spend', 'expiry', 'refund', 'adjustment')),
  amount bigint NOT NULL,
  balance_after bigint NOT NULL CHECK (balance_after >= 0),
  reason text,
  source text
);
CREATE INDEX credit_entries_subject ON credit_entries (subject_type, subject_id, id DESC);
CREATE UNIQUE INDEX credit_entries_source ON credit_entries (subject_type, subject_id, source)
  WHERE source IS NOT NULL;

-- A pack bought: the credits it added and the payment a refund names. `refunded_due` is what the
-- refunds seen so far were due, so each refund takes only its own share, in any order.
CREATE TABLE credit_purchases (
  session_id text PRIMARY KEY,
  subject_type text NOT NULL,
  subject_id uuid NOT NULL,
  pack text NOT NULL,
  credits bigint NOT NULL,
  payment_intent_id text UNIQUE,
  refunded_due bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- A spend's answer by its idempotency key, kept 7 days: the same key again gets it, and a request
-- with the key while the first still runs waits for the first's insert to commit.
CREATE TABLE credit_spends (
  idempotency_key text PRIMARY KEY,
  subject_type text NOT NULL,
  subject_id uuid NOT NULL,
  amount bigint NOT NULL,
  status integer,
  answer text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX credit_spends_created ON credit_spends (created_at);
