-- Offers: trials, and scheduled cancellations both of Stripe's ways. Existing rows keep their data;
-- the new columns are empty for them until the next event or read of their subscription.

-- When the subscription is scheduled to end (Stripe's `cancel_at`; the flexible billing mode sets
-- it and may leave cancel_at_period_end false), and when its trial ends.
ALTER TABLE subscriptions ADD COLUMN cancel_at timestamptz;
ALTER TABLE subscriptions ADD COLUMN trial_end timestamptz;

-- One trial per user, ever: set the first time any subscription is stored for the user, whatever
-- stored it (a checkout's events, a subscription made at the provider, a reconciliation, an
-- operator's sync), by the trigger below rather than by each writer; never cleared.
ALTER TABLE users ADD COLUMN first_subscription_at timestamptz;
UPDATE users SET first_subscription_at = first.created_at
FROM (SELECT user_id, min(created_at) AS created_at FROM subscriptions GROUP BY user_id) first
WHERE first.user_id = users.id;

CREATE FUNCTION mark_user_subscribed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE users SET first_subscription_at = NEW.created_at
  WHERE id = NEW.user_id AND first_subscription_at IS NULL;
  RETURN NULL;
END
$$;
CREATE TRIGGER subscriptions_mark_user_inserted AFTER INSERT ON subscriptions
  FOR EACH ROW EXECUTE FUNCTION mark_user_subscribed();
CREATE TRIGGER subscriptions_mark_user_moved AFTER UPDATE OF user_id ON subscriptions
  FOR EACH ROW WHEN (OLD.user_id IS DISTINCT FROM NEW.user_id) EXECUTE FUNCTION mark_user_subscribed();

-- The trial a checkout session offered (days; null: none), so a second click reuses a session
-- only when it still sells the same thing.
ALTER TABLE checkout_sessions ADD COLUMN trial_days integer;
