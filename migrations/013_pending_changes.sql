-- A change the provider will make to a subscription later: the price the next phase of the
-- subscription schedule managing it moves it to (a downgrade held until the period's end), from
-- the subscription_schedule.* events. price_id is null once none is pending (the schedule
-- released, canceled or completed). as_of is the `created` of the newest event applied, on the
-- provider's clock; in the same second an ended schedule (rank 1) wins over an active one (rank 0).
CREATE TABLE pending_changes (
  subscription_id text PRIMARY KEY,
  schedule_id text NOT NULL,
  price_id text,
  effective_at timestamptz,
  as_of bigint NOT NULL,
  rank smallint NOT NULL
);
