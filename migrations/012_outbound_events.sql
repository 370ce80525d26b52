-- Outbound events: what the application is told, written in the same transaction as the change it
-- reports (an outbox), and each attempt to deliver it.
--
-- What the application was last told of each subject (a user or an organisation), so that a change
-- is told once, whoever finds it: the transaction that wrote it, or the clock that sees a scheduled
-- end or a grace period pass. Subjects billed before this table existed start unknown (tier null):
-- their tier is then recorded without an event.
CREATE TABLE announced_subjects (
  subject_type text NOT NULL CHECK (subject_type IN ('user', 'organization')),
  subject_id uuid NOT NULL,
  tier text,
  seats integer,
  payment_failed_at timestamptz,
  PRIMARY KEY (subject_type, subject_id)
);

INSERT INTO announced_subjects (subject_type, subject_id)
  SELECT DISTINCT CASE WHEN user_id IS NOT NULL THEN 'user' ELSE 'organization' END,
    COALESCE(user_id, organization_id)
  FROM subscriptions;

-- `seq` orders a subject's events: they are written under its announced_subjects row's lock. The
-- body is the exact text sent on every attempt. A worker holds an event while `lease_until` is
-- ahead; `retry_from` starts the 3 days of retries (again on a resend).
CREATE TABLE outbound_events (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id text NOT NULL UNIQUE,
  subject_type text NOT NULL,
  subject_id uuid NOT NULL,
  type text NOT NULL,
  body text NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  retry_from timestamptz NOT NULL,
  next_attempt_at timestamptz NOT NULL,
  lease_holder text,
  lease_until timestamptz,
  settled_at timestamptz
);
-- The head of each subject's queue, and what is due.
CREATE INDEX outbound_events_pending ON outbound_events (subject_type, subject_id, seq)
  WHERE state = 'pending';
CREATE INDEX outbound_events_due ON outbound_events (next_attempt_at) WHERE state = 'pending';
-- Retention, by when an event was delivered or given up.
CREATE INDEX outbound_events_settled ON outbound_events (settled_at) WHERE state <> 'pending';

-- Each attempt: the answer's status (null: none came), how long it took, and the first 1 KB of
-- the answer's body (or why there was none).
CREATE TABLE outbound_deliveries (
  event_id text NOT NULL REFERENCES outbound_events (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  attempted_at timestamptz NOT NULL,
  status integer,
  duration_ms integer NOT NULL,
  answer text NOT NULL,
  PRIMARY KEY (event_id, attempt)
);
