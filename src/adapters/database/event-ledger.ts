// EventLedger on the database. Exactly-once rests on a per-event advisory lock taken by the
// transaction's first statement and on the record's primary key; every trick for speed (the lock
// and the look in one statement, the record sent with COMMIT, an event that carries its state in
// one statement, a read first during redelivery bursts, the records seen committed remembered in
// the process) stays in this file, event-with-state.ts and the adapter below them.
import type { WebhookEventRecord } from '../../domain/model.ts';
import type { EventLedger } from '../../domain/ports/event-ledger.ts';
import type { Database, SqlClient, Statement } from './sql-client.ts';
import { deleteInBatches } from './batch-delete.ts';
import { CommittedIds } from './committed-ids.ts';
import { recordWithState } from './event-with-state.ts';
import { RedeliveryShare } from './redelivery-share.ts';
import { bindRepositories } from './store.ts';
import { unwatched, type TransactionWatch } from '../../domain/events/tier-watch.ts';

/**
 * Ends a transaction whose event is recorded already: rolled back, nothing run. One instance,
 * thrown each time: redeliveries are common, and a stack captured per throw would cost each one.
 */
const RECORDED_ALREADY = new Error('event recorded already');

/**
 * Says whether the event is recorded already; if it is not, first waits until no other
 * transaction works on this event (on any instance). One statement, one round trip:
 * `lock_webhook_event` (migrations/003) looks before it waits and again after.
 */
async function lockEvent(tx: SqlClient, id: string): Promise<{ recorded: boolean }> {
  const [row] = await tx.query<{ recorded: boolean }>('SELECT lock_webhook_event($1) AS recorded', [
    id,
  ]);
  return { recorded: row!.recorded };
}

/** The record's insert, the transaction's last statement: it can travel with COMMIT. */
function recordInsert(e: WebhookEventRecord): Statement {
  return {
    sql: 'INSERT INTO webhook_events (id, type, livemode, outcome, event_created) VALUES ($1, $2, $3, $4, to_timestamp($5))',
    params: [e.id, e.type, e.livemode, e.outcome, e.created],
  };
}

/** The error of that insert when the event is recorded already (kept as a second line of defence). */
function isRecordedAlready(error: unknown): boolean {
  const { code, constraint } = error as { code?: string; constraint?: string };
  return error === RECORDED_ALREADY || (code === '23505' && constraint === 'webhook_events_pkey');
}

/** The event's transaction: `apply`, then the record; false when the event is recorded already. */
async function recordInTransaction(
  db: Database,
  record: WebhookEventRecord,
  apply: Parameters<EventLedger['recordOnce']>[1],
  committed: CommittedIds,
  watch: TransactionWatch,
): Promise<boolean> {
  try {
    const work = async (tx: SqlClient) => {
      if ((await lockEvent(tx, record.id)).recorded) throw RECORDED_ALREADY;
      await watch(bindRepositories(tx), apply, null);
    };
    await db.transaction(work, recordInsert(record));
    committed.add(record.id, record.type);
    return true;
  } catch (error) {
    if (!isRecordedAlready(error)) throw error;
    committed.add(record.id, record.type);
    return false;
  }
}

export function createEventLedger(
  db: Database,
  readRecorded = recordedTypeIn(db),
  committed = new CommittedIds(),
  watch: TransactionWatch = unwatched,
): EventLedger {
  // A redelivery costs BEGIN with the lock statement, then a ROLLBACK; while most deliveries are
  // redeliveries (a replay, a retry backlog), one read with no transaction answers them instead.
  // A record this process has seen committed answers with no database work at all.
  const redeliveries = new RedeliveryShare();
  const isRecorded = async (id: string) => {
    if (committed.has(id)) return true;
    const type = await readRecorded(id);
    if (type !== null) committed.add(id, type);
    return type !== null;
  };
  /** Whether a redelivery is answered before any work: from memory, or by a read during a burst. */
  const recordedAlready = async (id: string) =>
    committed.has(id) || (redeliveries.mostlyRedeliveries && (await isRecorded(id)));
  return {
    async recordOnce(record, apply) {
      const recorded =
        !(await recordedAlready(record.id)) &&
        (await recordInTransaction(db, record, apply, committed, watch));
      redeliveries.observe(!recorded);
      return recorded;
    },
    async recordWithState(record, state) {
      const duplicate = await recordedAlready(record.id);
      // A watched transaction tells the application what changed; one statement cannot.
      if (!duplicate && watch !== unwatched) return 'unsettled';
      const step = duplicate ? 'duplicate' : await recordWithState(db, record, state);
      if (step === 'unsettled') return step;
      committed.add(record.id, record.type);
      redeliveries.observe(step === 'duplicate');
      return step;
    },
    isRecorded,
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
