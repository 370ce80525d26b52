-- One watermark for the ordering guard, on the provider's clock: `as_of` is the second up to which
-- the stored state is known to be the provider's (the `created` of the newest event applied, or the
-- provider's own time of the read it came from). An event created before it is contained in the
-- stored state; one from the same second makes the service read the provider again.
-- `synced_at` was our clock's time of the last read; it folds into the watermark (our clock stands
-- in for the provider's for rows read before this migration) and goes.
ALTER TABLE subscriptions RENAME COLUMN event_created TO as_of;
UPDATE subscriptions SET as_of = GREATEST(as_of, floor(extract(epoch FROM synced_at))::bigint) WHERE synced_at IS NOT NULL;
ALTER TABLE subscriptions DROP COLUMN synced_at;
-- Bumped by every write: a provider read applies only over the state it was started after.
ALTER TABLE subscriptions ADD COLUMN revision bigint NOT NULL DEFAULT 0;
