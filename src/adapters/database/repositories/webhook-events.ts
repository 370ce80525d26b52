// The processed-event record (exactly-once rests on its primary key: a second insert of one id
// waits for the first's transaction, then does nothing) and the failure log, which is written
// outside the rolled-back transaction.
import type { WebhookEventsRepository, WebhookFailuresRepository } from '../../../domain/ports.ts';
import type { SqlClient } from '../sql-client.ts';

export function webhookEventsRepository(db: SqlClient): WebhookEventsRepository {
  return {
    async exists(id) {
      return (await db.query('SELECT 1 FROM webhook_events WHERE id = $1', [id])).length > 0;
    },
    async insert(e) {
      const inserted = await db.query(
        `INSERT INTO webhook_events (id, type, livemode, outcome, event_created) VALUES ($1, $2, $3, $4, to_timestamp($5))
         ON CONFLICT (id) DO NOTHING RETURNING id`,
        [e.id, e.type, e.livemode, e.outcome, e.created],
      );
      return inserted.length > 0;
    },
  };
}

export function webhookFailuresRepository(db: SqlClient): WebhookFailuresRepository {
  return {
    async record(f) {
      await db.query('INSERT INTO webhook_failures (event_id, type, error) VALUES ($1, $2, $3)', [f.eventId, f.type, f.error]);
    },
  };
}
