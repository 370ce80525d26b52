// An event whose whole effect is the subscription state it carries, recorded and applied in one
// statement (one round trip, no transaction around it): the stored subscription is locked, the
// ordering decided on what is stored now, the record inserted, and only if it was, the state
// written. A delivery racing with this one waits on the lock or on the record's key, then finds
// the record and writes nothing, so the effect applies once; a failing statement leaves nothing.
import type { WebhookEventRecord } from '../../domain/model.ts';
import type { CarriedState, OneStep } from '../../domain/ports/event-ledger.ts';
import { SET_NEWER_TERMS, stateParams } from './repositories/subscriptions.ts';
import type { SqlClient } from './sql-client.ts';

// $1 to $12: the state (stateParams); $13 to $17: the record. The ordering rule as the
// repository's conditional write has it: written over an earlier second of the same customer,
// nothing over a later second; the same second, or nothing stored, is left to the caller.
const RECORD_WITH_STATE = `WITH stored AS (
    SELECT CASE WHEN as_of < $10 AND customer_id = $2 THEN 'written'
      WHEN as_of > $10 THEN 'older' END AS verdict
    FROM subscriptions WHERE id = $1 FOR UPDATE),
  recorded AS (
    INSERT INTO webhook_events (id, type, livemode, outcome, event_created)
    SELECT $13, $14, $15, $16, to_timestamp($17) FROM stored WHERE verdict IS NOT NULL
    ON CONFLICT (id) DO NOTHING RETURNING 1),
  written AS (
    UPDATE subscriptions SET ${SET_NEWER_TERMS}
    WHERE id = $1 AND as_of < $10 AND (SELECT verdict FROM stored) = 'written'
      AND EXISTS (SELECT 1 FROM recorded)
    RETURNING 1)
  SELECT (SELECT verdict FROM stored) AS verdict, EXISTS (SELECT 1 FROM recorded) AS recorded,
    EXISTS (SELECT 1 FROM webhook_events WHERE id = $13) AS seen`;

export async function recordWithState(
  db: SqlClient,
  record: WebhookEventRecord,
  state: CarriedState,
): Promise<OneStep> {
  const [row] = await db.query<{
    verdict: 'written' | 'older' | null;
    recorded: boolean;
    /** Recorded before the statement began (its own insert is not seen here). */
    seen: boolean;
  }>(RECORD_WITH_STATE, [
    ...stateParams(state),
    record.id,
    record.type,
    record.livemode,
    record.outcome,
    record.created,
  ]);
  if (row!.seen) return 'duplicate';
  if (row!.verdict === null) return 'unsettled';
  return row!.recorded ? row!.verdict : 'duplicate';
}
