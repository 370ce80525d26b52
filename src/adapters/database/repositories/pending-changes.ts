// A subscription's pending change (migrations/013: pending_changes), written in one statement that
// keeps a newer one: an event older than the stored one changes nothing, and in the same second a
// schedule that ended wins over one that is active.
import type { PendingChange } from '../../../domain/model/subscriptions.ts';
import type { PendingChangesRepository } from '../../../domain/ports/pending-changes.ts';
import type { SqlClient } from '../sql-client.ts';
import { ownerOf, type OwnerRow } from './rows.ts';

// Each write says who pays for the subscription when it changed what is stored.
const OWNER_OF_WRITTEN = `SELECT s.user_id, s.organization_id FROM written
  JOIN subscriptions s ON s.id = written.subscription_id`;

const RECORD = `WITH written AS (
  INSERT INTO pending_changes (subscription_id, schedule_id, price_id, effective_at, as_of, rank)
  VALUES ($1, $2, $3, $4, $5, $6)
  ON CONFLICT (subscription_id) DO UPDATE SET schedule_id = EXCLUDED.schedule_id,
    price_id = EXCLUDED.price_id, effective_at = EXCLUDED.effective_at,
    as_of = EXCLUDED.as_of, rank = EXCLUDED.rank
    WHERE pending_changes.as_of < EXCLUDED.as_of
      OR (pending_changes.as_of = EXCLUDED.as_of AND pending_changes.rank <= EXCLUDED.rank)
  RETURNING subscription_id)
  ${OWNER_OF_WRITTEN}`;

const CLEAR = `WITH written AS (
  UPDATE pending_changes SET price_id = NULL, effective_at = NULL, as_of = $2, rank = 1
  WHERE subscription_id = $1 AND as_of <= $2
  RETURNING subscription_id)
  ${OWNER_OF_WRITTEN}`;

const TIE = `
  SELECT 1 FROM pending_changes
  WHERE subscription_id = $1 AND as_of = $2 AND rank = 0
    AND (schedule_id, price_id, effective_at) IS DISTINCT FROM ($3, $4, $5::timestamptz)`;

const FIND = `
  SELECT price_id, effective_at FROM pending_changes
  WHERE subscription_id = $1 AND price_id IS NOT NULL`;

export function pendingChangesRepository(db: SqlClient): PendingChangesRepository {
  return {
    async record({ subscriptionId, scheduleId, change, ended, asOf }) {
      const [owner] = await db.query<OwnerRow>(RECORD, [
        subscriptionId,
        scheduleId,
        change?.priceId ?? null,
        change?.effectiveAt ?? null,
        asOf,
        ended ? 1 : 0,
      ]);
      return owner === undefined ? null : ownerOf(owner);
    },
    async tiesWith({ subscriptionId, scheduleId, change, ended, asOf }) {
      if (ended) return false;
      const found = await db.query(TIE, [
        subscriptionId,
        asOf,
        scheduleId,
        change?.priceId ?? null,
        change?.effectiveAt ?? null,
      ]);
      return found.length > 0;
    },
    async clear(subscriptionId, asOf) {
      const [owner] = await db.query<OwnerRow>(CLEAR, [subscriptionId, asOf]);
      return owner === undefined ? null : ownerOf(owner);
    },
    async of(subscriptionId): Promise<PendingChange | null> {
      const [row] = await db.query<{ price_id: string; effective_at: Date }>(FIND, [
        subscriptionId,
      ]);
      return row === undefined
        ? null
        : { priceId: row.price_id, effectiveAt: new Date(row.effective_at) };
    },
  };
}
