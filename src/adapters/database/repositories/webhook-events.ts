// The processed-event record and the failure log, which is written outside the rolled-back
// transaction. Exactly-once rests on a per-event advisory lock taken first in the transaction,
// and on the record's primary key.
import type { WebhookEventRecord } from '../../../domain/model.ts';
import type { WebhookEventsRepository, WebhookFailuresRepository } from '../../../domain/ports/store.ts';
import type { SqlClient, Statement } from '../sql-client.ts';

export function webhookEventsRepository(db: SqlClient): WebhookEventsRepository {
  return {
    async isRecorded(id) {
      return (await db.query('SELECT 1 FROM webhook_events WHERE id = $1', [id])).length > 0;
    },
  };
}

/**
 * Inside a transaction, first: says whether the event is recorded already; if it is not, first
 * waits until no other transaction works on this event (on any instance). One statement, one
 * round trip: `lock_webhook_event` (migrations/003) looks before it waits and again after.
 */
export async function lockEvent(tx: SqlClient, id: string): Promise<{ recorded: boolean }> {
  const [row] = await tx.query<{ recorded: boolean }>('SELECT lock_webhook_event($1) AS recorded', [id]);
  return { recorded: row!.recorded };
}

/** The insert of an event's record, run as a transaction's last statement (see store.ts). */
export function eventRecordInsert(e: WebhookEventRecord): Statement {
  return {
    sql: 'INSERT INTO webhook_events (id, type, livemode, outcome, event_created) VALUES ($1, $2, $3, $4, to_timestamp($5))',
    params: [e.id, e.type, e.livemode, e.outcome, e.created],
  };
}

/** The error of that insert when the event is recorded already (kept as a second line of defence). */
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
