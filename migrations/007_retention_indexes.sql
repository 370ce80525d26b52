-- Retention deletes event records by the event's age and failure records by theirs, in small
-- batches (adapters/database/batch-delete.ts); each batch finds its rows through these indexes.
-- On a large existing table, build them first without blocking writes, and this file then does
-- nothing: CREATE INDEX CONCURRENTLY IF NOT EXISTS webhook_events_event_created ON webhook_events (event_created);
-- (and the same for webhook_failures_failed_at).
CREATE INDEX IF NOT EXISTS webhook_events_event_created ON webhook_events (event_created);
CREATE INDEX IF NOT EXISTS webhook_failures_failed_at ON webhook_failures (failed_at);
