// The processed-event record and the failure log, which is written outside the rolled-back
// transaction. Exactly-once rests on the record's primary key: a second insert of one id waits
// for the transaction of the first, then fails (or goes ahead, if that one rolled back).
import type { WebhookEventRecord, WebhookEventsRepository, WebhookFailuresRepository } from '../../../domain/ports.ts';
import type { SqlClient, Statement } from '../sql-client.ts';

export function webhookEventsRepository(db: SqlClient): WebhookEventsRepository {
  return {
    async exists(id) {
      return (await db.query('SELECT 1 FROM webhook_events WHERE id = $1', [id])).length > 0;
    },
  };
}

/** The insert of an event's record, run as a transaction's last statement (see store.ts). */
export function eventRecordInsert(e: WebhookEventRecord): Statement {
  return {
    sql: 'INSERT INTO webhook_events (id, type, livemode, outcome, event_created) VALUES ($1, $2, $3, $4, to_timestamp($5))',
    params: [e.id, e.type, e.livemode, e.outcome, e.created],
  };
}

/** The error of that insert when the event is recorded already. */
export function isEventRecordedAlready(error: unknown): boolean {
  const { code, constraint } = error as { code?: string; constraint?: string };
  return code === '23505' && constraint === 'webhook_events_pkey';
}

export function webhookFailuresRepository(db: SqlClient): WebhookFailuresRepository {
  return {
    async record(f) {
      await db.query('INSERT INTO webhook_failures (event_id, type, error) VALUES ($1, $2, $3)', [f.eventId, f.type, f.error]);
    },
  };
}
