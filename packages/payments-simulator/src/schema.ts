// The simulator's own tables, in the database it is given (beside a host application's tables when
// it shares that database), so its state survives a restart: sim_objects (Stripe objects as
// documents), sim_events (the event outbox with each event's delivery state) and sim_idempotency
// (Idempotency-Key results). Created on start.
import type { SimulatorDatabase } from './sql-client.ts';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS sim_objects (
    id text PRIMARY KEY,
    seq bigint GENERATED ALWAYS AS IDENTITY,
    type text NOT NULL,
    customer text,
    status text,
    ref text,
    created bigint NOT NULL,
    data text NOT NULL,
    extra text NOT NULL DEFAULT '{}'
  );
  CREATE INDEX IF NOT EXISTS sim_objects_type_seq ON sim_objects (type, seq);
  CREATE TABLE IF NOT EXISTS sim_events (
    id text PRIMARY KEY,
    seq bigint GENERATED ALWAYS AS IDENTITY,
    type text NOT NULL,
    created bigint NOT NULL,
    data text NOT NULL,
    delivered_at bigint,
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at bigint,
    last_response text
  );
  CREATE INDEX IF NOT EXISTS sim_events_due ON sim_events (next_attempt_at) WHERE delivered_at IS NULL;
  CREATE TABLE IF NOT EXISTS sim_idempotency (
    key text PRIMARY KEY,
    method text NOT NULL,
    path text NOT NULL,
    fingerprint text NOT NULL,
    state text NOT NULL,
    status integer,
    body text,
    request_id text NOT NULL,
    created_at bigint NOT NULL
  );`;

/** Creates the tables once; the advisory lock keeps two first starts on one PostgreSQL apart. */
export async function ensureSchema(db: SimulatorDatabase): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(724120771)');
    await tx.exec(SCHEMA);
  });
}
