-- The trace of the change an outbound event reports: the W3C traceparent of the span active when
-- the event was written, in that change's transaction. Each delivery attempt continues that
-- trace, so the application's own trace follows on from the service's. Null when nothing was
-- being traced (tracing off, or a change made outside any trace).
ALTER TABLE outbound_events ADD COLUMN trace_parent text;
