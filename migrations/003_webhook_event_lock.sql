-- The first statement of an event's transaction (see repositories/webhook-events.ts), in one round
-- trip: a committed record answers "recorded" at once, without waiting; otherwise it waits for the
-- per-event lock (another delivery of the same event in flight, on any instance) and looks again.
-- Each statement of a volatile PL/pgSQL function takes a fresh snapshot under READ COMMITTED, so the
-- second look sees what the lock's previous holder committed.
CREATE FUNCTION lock_webhook_event(event_id text) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM webhook_events WHERE id = event_id) THEN
    RETURN true;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended(event_id, 0));
  RETURN EXISTS (SELECT 1 FROM webhook_events WHERE id = event_id);
END
$$;
