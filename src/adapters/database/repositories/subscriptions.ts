// Subscription state as last applied. The ordering decision is the domain's; this only stores.
import type { SubscriptionsRepository } from '../../../domain/ports/store.ts';
import type { SqlClient } from '../sql-client.ts';
import { SUBSCRIPTION_COLUMNS, toSubscription, type SubscriptionRow } from './rows.ts';

export function subscriptionsRepository(db: SqlClient): SubscriptionsRepository {
  return {
    async find(id) {
      // FOR UPDATE: two events for one subscription in flight at once are applied one after the
      // other, the second deciding against what the first committed; without the lock both read
      // the same state and the older could be saved last, over the newer.
      const [row] = await db.query<SubscriptionRow>(`SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s WHERE s.id = $1 FOR UPDATE`, [id]);
      return row ? toSubscription(row) : null;
    },
    async save(s) {
      await db.query(
        `INSERT INTO subscriptions (id, user_id, customer_id, status, price_id, cancel_at_period_end, current_period_end,
           payment_failed_at, created_at, event_created, synced_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (id) DO UPDATE SET user_id = EXCLUDED.user_id, customer_id = EXCLUDED.customer_id, status = EXCLUDED.status,
           price_id = EXCLUDED.price_id, cancel_at_period_end = EXCLUDED.cancel_at_period_end,
           current_period_end = EXCLUDED.current_period_end, payment_failed_at = EXCLUDED.payment_failed_at,
           event_created = EXCLUDED.event_created, synced_at = EXCLUDED.synced_at, updated_at = now()
         -- Never older over newer, even when two first events for one subscription race.
         WHERE subscriptions.event_created <= EXCLUDED.event_created`,
        [s.id, s.userId, s.customerId, s.status, s.priceId, s.cancelAtPeriodEnd, s.currentPeriodEnd, s.paymentFailedAt, s.createdAt, s.eventCreated, s.syncedAt],
      );
    },
    async applyIfNewer(s, created) {
      // `synced_at` is compared in whole seconds, as event times are.
      const applied = await db.query(
        `UPDATE subscriptions SET status = $3, price_id = $4, cancel_at_period_end = $5, current_period_end = $6,
           payment_failed_at = CASE WHEN $3 = 'past_due' THEN COALESCE(payment_failed_at, to_timestamp($7)) END,
           event_created = $7, updated_at = now()
         WHERE id = $1 AND customer_id = $2 AND event_created < $7
           AND (synced_at IS NULL OR floor(extract(epoch FROM synced_at)) < $7)
         RETURNING id`,
        [s.id, s.customerId, s.status, s.priceId, s.cancelAtPeriodEnd, s.currentPeriodEnd, created],
      );
      return applied.length > 0;
    },
  };
}
