// EventLedger on the database. Exactly once rests on the record's primary key: the record is the
// first statement of the event's transaction (`ON CONFLICT DO NOTHING`), so a delivery of an event
// another delivery is working on, on any instance, waits on that one's uncommitted key, then finds
// it recorded and rolls back; otherwise the handler's work follows, then COMMIT. The handler's first
// statement is sent behind the record without waiting for its answer (one round trip for both),
// and its answer is given to the handler only once the record says the event is new: for a
// recorded event the handler sees nothing, and what the statement did is rolled back. The records
// this process saw committed are remembered (committed-ids.ts): a redelivery of one costs no
// statement.
import type { WebhookEventRecord } from '../../domain/model/handled-events.ts';
import type { EventLedger } from '../../domain/ports/event-ledger.ts';
import type { Database, SqlClient } from './sql-client.ts';
import { deleteInBatches } from './batch-delete.ts';
import { CommittedIds } from './committed-ids.ts';
import { bindRepositories, type OutboundEvents } from './store.ts';

/**
 * Ends a transaction whose event is recorded already: rolled back, nothing run. One instance,
 * thrown each time: a stack captured per throw would cost each redelivery.
 */
const RECORDED_ALREADY = new Error('event recorded already');

const RECORD = `INSERT INTO webhook_events (id, type, livemode, outcome, event_created)
  VALUES ($1, $2, $3, $4, to_timestamp($5)) ON CONFLICT (id) DO NOTHING RETURNING 1`;

/** `tx`, its statements sent at once but answered only after `isNew` (rejecting: their error). */
function behind(isNew: Promise<void>, tx: SqlClient): SqlClient {
  const after = async <T>(sent: Promise<T>) => {
    sent.catch(() => {}); // its error, if any, is thrown below, once `isNew` has settled
    await isNew;
    return sent;
  };
  return {
    query: (sql, params) => after(tx.query(sql, params)),
    exec: (sql) => after(tx.exec(sql)),
  };
}

/** The event's transaction: the record, then `apply`; false when the event is recorded already. */
async function recordInTransaction(
  db: Database,
  record: WebhookEventRecord,
  apply: Parameters<EventLedger['recordOnce']>[1],
  outbound: OutboundEvents,
): Promise<boolean> {
  const params = [record.id, record.type, record.livemode, record.outcome, record.created];
  try {
    await db.transaction(async (tx) => {
      const isNew = tx.query(RECORD, params).then((made) => {
        if (made.length === 0) throw RECORDED_ALREADY;
      });
      isNew.catch(() => {}); // awaited below, and by each of the handler's statements
      // A recorded event answers duplicate, whatever its handler met meanwhile.
      await apply(bindRepositories(behind(isNew, tx), outbound)).finally(() => isNew);
    });
    return true;
  } catch (error) {
    if (error === RECORDED_ALREADY) return false;
    throw error;
  }
}

export function createEventLedger(
  db: Database,
  outbound: OutboundEvents,
  readRecorded = recordedTypeIn(db),
  committed = new CommittedIds(),
): EventLedger {
  return {
    async recordOnce(record, apply) {
      if (committed.has(record.id)) return false;
      const recorded = await recordInTransaction(db, record, apply, outbound);
      committed.add(record.id, record.type);
      return recorded;
    },
    async isRecorded(id) {
      if (committed.has(id)) return true;
      const type = await readRecorded(id);
      if (type !== null) committed.add(id, type);
      return type !== null;
    },
    rememberedType: (id) => committed.typeOf(id),
    async recordFailure(f) {
      await db.query('INSERT INTO webhook_failures (event_id, type, error) VALUES ($1, $2, $3)', [
        f.eventId,
        f.type,
        f.error,
      ]);
    },
    forgetEvents: (createdBefore, signal) =>
      deleteInBatches(db, 'webhook_events', 'event_created < $1', [createdBefore], signal),
    forgetFailures: (before, signal) =>
      deleteInBatches(db, 'webhook_failures', 'failed_at < $1', [before], signal),
  };
}

/**
 * The type of a committed record, or null when there is none; read with no transaction (a
 * committed record is final).
 */
export function recordedTypeIn(db: SqlClient) {
  return async (id: string): Promise<string | null> =>
    (await db.query<{ type: string }>('SELECT type FROM webhook_events WHERE id = $1', [id]))[0]
      ?.type ?? null;
}
