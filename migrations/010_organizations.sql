-- Organisations as billing subjects. An organisation is what a verified token names (its issuer and
-- the claim's value); it gets a row on first sight, race-safe by the unique key, like users. A user
-- who presents a token naming one is its member, seen at most hourly; a role is never stored. A
-- subscription or a checkout session belongs to a user or to an organisation, exactly one of the
-- two; every existing row stays a user's.
CREATE TABLE organizations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  issuer text NOT NULL,
  idp_org_id text NOT NULL,
  -- The plan its checkout sells (an operator's set-plan); null: BILLING_ORG_PLAN.
  plan text,
  payments_customer_id text UNIQUE,
  -- One trial per organisation, ever: set by the trigger below, never cleared.
  first_subscription_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (issuer, idp_org_id)
);

CREATE TABLE memberships (
  organization_id uuid NOT NULL REFERENCES organizations (id),
  user_id uuid NOT NULL REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, user_id)
);
-- Counting the members seen within the window.
CREATE INDEX memberships_last_seen ON memberships (organization_id, last_seen_at);

ALTER TABLE subscriptions ALTER COLUMN user_id DROP NOT NULL;
ALTER TABLE subscriptions ADD COLUMN organization_id uuid REFERENCES organizations (id);
ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_one_subject
  CHECK ((user_id IS NULL) <> (organization_id IS NULL));
CREATE INDEX subscriptions_organization_id ON subscriptions (organization_id);
-- The subscription's (first) item and its quantity: the seats an organisation is billed for.
ALTER TABLE subscriptions ADD COLUMN item_id text;
ALTER TABLE subscriptions ADD COLUMN quantity integer;

ALTER TABLE checkout_sessions ALTER COLUMN user_id DROP NOT NULL;
ALTER TABLE checkout_sessions ADD COLUMN organization_id uuid REFERENCES organizations (id);
ALTER TABLE checkout_sessions ADD CONSTRAINT checkout_sessions_one_subject
  CHECK ((user_id IS NULL) <> (organization_id IS NULL));
CREATE INDEX checkout_sessions_organization_id ON checkout_sessions (organization_id, created_at DESC);
-- The quantity a session sells; null: one (every session made before organisations).
ALTER TABLE checkout_sessions ADD COLUMN quantity integer;

-- One trial per subject, ever: the user's or the organisation's first subscription, whoever wrote it.
DROP TRIGGER subscriptions_mark_user_inserted ON subscriptions;
DROP TRIGGER subscriptions_mark_user_moved ON subscriptions;
DROP FUNCTION mark_user_subscribed();
CREATE FUNCTION mark_subject_subscribed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.user_id IS NOT NULL THEN
    UPDATE users SET first_subscription_at = NEW.created_at
    WHERE id = NEW.user_id AND first_subscription_at IS NULL;
  ELSE
    UPDATE organizations SET first_subscription_at = NEW.created_at
    WHERE id = NEW.organization_id AND first_subscription_at IS NULL;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER subscriptions_mark_subject_inserted AFTER INSERT ON subscriptions
  FOR EACH ROW EXECUTE FUNCTION mark_subject_subscribed();
CREATE TRIGGER subscriptions_mark_subject_moved AFTER UPDATE OF user_id, organization_id ON subscriptions
  FOR EACH ROW WHEN (OLD.user_id IS DISTINCT FROM NEW.user_id
    OR OLD.organization_id IS DISTINCT FROM NEW.organization_id)
  EXECUTE FUNCTION mark_subject_subscribed();

-- A provider customer is a user's or an organisation's, never both: each table's unique key keeps it
-- to one row, and this keeps it to one table. The per-customer lock makes two links of one customer
-- take turns; each statement of the function then sees what the other committed.
CREATE FUNCTION refuse_shared_customer() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('customer:' || NEW.payments_customer_id, 0));
  IF (TG_TABLE_NAME = 'users' AND EXISTS (
        SELECT 1 FROM organizations WHERE payments_customer_id = NEW.payments_customer_id))
     OR (TG_TABLE_NAME = 'organizations' AND EXISTS (
        SELECT 1 FROM users WHERE payments_customer_id = NEW.payments_customer_id)) THEN
    RAISE EXCEPTION 'customer % belongs to another billing subject', NEW.payments_customer_id
      USING ERRCODE = 'unique_violation';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER users_customer_unshared BEFORE INSERT OR UPDATE OF payments_customer_id ON users
  FOR EACH ROW WHEN (NEW.payments_customer_id IS NOT NULL) EXECUTE FUNCTION refuse_shared_customer();
CREATE TRIGGER organizations_customer_unshared BEFORE INSERT OR UPDATE OF payments_customer_id
  ON organizations FOR EACH ROW WHEN (NEW.payments_customer_id IS NOT NULL)
  EXECUTE FUNCTION refuse_shared_customer();

-- The seat engine's state, one row per organisation that ever needed a quantity: what the
-- application reported (BILLING_SEATS=reported), the quantity the provider should bill and its
-- revision (bumped whenever a new push is needed, so an idempotency key is never reused for a later
-- change), the revision the provider last accepted, and the work to do: `changes` counts what may
-- have moved the quantity, `pending_since` is set while something is left to look at. A worker on
-- any instance takes an organisation's lease (holder, held_until) before calling the provider, so
-- one call is in flight per organisation across all instances; a failed call waits until retry_at.
CREATE TABLE organization_seats (
  organization_id uuid PRIMARY KEY REFERENCES organizations (id),
  reported integer,
  reported_as_of timestamptz,
  desired integer,
  revision bigint NOT NULL DEFAULT 0,
  pushed_revision bigint,
  changes bigint NOT NULL DEFAULT 0,
  changed_at timestamptz,
  pending_since timestamptz,
  holder text,
  held_until timestamptz,
  failures integer NOT NULL DEFAULT 0,
  retry_at timestamptz
);
CREATE INDEX organization_seats_pending ON organization_seats (pending_since)
  WHERE pending_since IS NOT NULL;

-- What may move an organisation's quantity, wherever it comes from.
CREATE FUNCTION mark_seats_changed(organization uuid) RETURNS void LANGUAGE sql AS $$
  INSERT INTO organization_seats (organization_id, changes, changed_at, pending_since)
  VALUES (organization, 1, now(), now())
  ON CONFLICT (organization_id) DO UPDATE SET changes = organization_seats.changes + 1,
    changed_at = now(), pending_since = COALESCE(organization_seats.pending_since, now())
$$;

-- An organisation's subscription stored, or its status or quantity changed (a webhook, a read, a
-- reconciliation finding drift): the seat engine looks whether the provider's quantity is right.
CREATE FUNCTION seats_follow_subscription() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM mark_seats_changed(NEW.organization_id);
  RETURN NULL;
END
$$;
CREATE TRIGGER subscriptions_seats_inserted AFTER INSERT ON subscriptions
  FOR EACH ROW WHEN (NEW.organization_id IS NOT NULL) EXECUTE FUNCTION seats_follow_subscription();
CREATE TRIGGER subscriptions_seats_changed AFTER UPDATE ON subscriptions
  FOR EACH ROW WHEN (NEW.organization_id IS NOT NULL AND (OLD.quantity IS DISTINCT FROM NEW.quantity
    OR OLD.status IS DISTINCT FROM NEW.status OR OLD.item_id IS DISTINCT FROM NEW.item_id))
  EXECUTE FUNCTION seats_follow_subscription();
