// Subscription state as last applied. The ordering decision is the domain's; this only stores.
import type { SubscriptionsRepository } from '../../../domain/ports/store.ts';
import type { SqlClient } from '../sql-client.ts';
import { SUBSCRIPTION_COLUMNS, toSubscription, type SubscriptionRow } from './rows.ts';

const SELECT_ONE = `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s WHERE s.id = $1`;

export function subscriptionsRepository(db: SqlClient): SubscriptionsRepository {
  const findOne = async (sql: string, id: string) => {
    const [row] = await db.query<SubscriptionRow>(sql, [id]);
    return row ? toSubscription(row) : null;
  };
  return {
    find: (id) => findOne(SELECT_ONE, id),
    findForUpdate: (id) => findOne(`${SELECT_ONE} FOR UPDATE`, id),
    async findMany(ids, { lock = false } = {}) {
      const rows = await db.query<SubscriptionRow>(
        `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s WHERE s.id = ANY($1) ORDER BY s.id${lock ? ' FOR UPDATE' : ''}`,
        [[...ids]],
      );
      return rows.map((row) => toSubscription(row)!);
    },
    async confirm(ids, asOf) {
      if (ids.length === 0) return;
      await db.query(
        'UPDATE subscriptions SET as_of = $2, revision = revision + 1, updated_at = now() WHERE id = ANY($1) AND as_of < $2',
        [[...ids], asOf],
      );
    },
    async holdersOf(customerId, exceptUserId) {
      const rows = await db.query<{ user_id: string }>(
        'SELECT DISTINCT user_id FROM subscriptions WHERE customer_id = $1 AND user_id <> $2',
        [customerId, exceptUserId],
      );
      return rows.map((row) => row.user_id);
    },
    async insert(s) {
      const inserted = await db.query(
        `INSERT INTO subscriptions (id, user_id, customer_id, status, price_id, cancel_at_period_end, current_period_end,
           payment_failed_at, created_at, as_of, cancel_at, trial_end)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
         ON CONFLICT (id) DO NOTHING RETURNING 1`,
        [
          s.id,
          s.userId,
          s.customerId,
          s.status,
          s.priceId,
          s.cancelAtPeriodEnd,
          s.currentPeriodEnd,
          s.paymentFailedAt,
          s.createdAt,
          s.asOf,
          s.cancelAt,
          s.trialEnd,
        ],
      );
      return inserted.length > 0;
    },
    async update(s) {
      await db.query(
        `UPDATE subscriptions SET user_id = $2, customer_id = $3, status = $4, price_id = $5, cancel_at_period_end = $6,
           current_period_end = $7, payment_failed_at = $8, as_of = $9, cancel_at = $10, trial_end = $11,
           revision = revision + 1, updated_at = now()
         WHERE id = $1`,
        [
          s.id,
          s.userId,
          s.customerId,
          s.status,
          s.priceId,
          s.cancelAtPeriodEnd,
          s.currentPeriodEnd,
          s.paymentFailedAt,
          s.asOf,
          s.cancelAt,
          s.trialEnd,
        ],
      );
    },
    async applyIfNewer(s, created) {
      // One round trip either way: applied, or what stands in the way. `as_of` never decreases,
      // so a stored state newer than the event in this statement's snapshot is newer still now.
      const [row] = await db.query<{ applied: boolean; as_of: string | number }>(
        `WITH applied AS (
           UPDATE subscriptions SET status = $3, price_id = $4, cancel_at_period_end = $5, current_period_end = $6,
             payment_failed_at = CASE WHEN $3 = 'past_due' THEN COALESCE(payment_failed_at, to_timestamp($7)) END,
             as_of = $7, cancel_at = $8, trial_end = $9, revision = revision + 1, updated_at = now()
           WHERE id = $1 AND customer_id = $2 AND as_of < $7
           RETURNING as_of)
         SELECT true AS applied, as_of FROM applied
         UNION ALL SELECT false, as_of FROM subscriptions WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM applied)`,
        [
          s.id,
          s.customerId,
          s.status,
          s.priceId,
          s.cancelAtPeriodEnd,
          s.currentPeriodEnd,
          created,
          s.cancelAt,
          s.trialEnd,
        ],
      );
      if (row === undefined) return 'undecided';
      return row.applied ? 'applied' : Number(row.as_of) > created ? 'older' : 'undecided';
    },
  };
}
