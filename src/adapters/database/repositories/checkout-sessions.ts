// Checkout sessions we opened, so a second click can return the same still-open session.
import type { CheckoutSessionRecord } from '../../../domain/model.ts';
import type { CheckoutSessionsRepository } from '../../../domain/ports/store.ts';
import type { SqlClient } from '../sql-client.ts';

interface Row {
  id: string;
  user_id: string;
  url: string;
  price_id: string;
  success_url: string;
  cancel_url: string;
  trial_days: number | null;
  expires_at: Date;
}

const toRecord = (row: Row): CheckoutSessionRecord => ({
  id: row.id,
  userId: row.user_id,
  url: row.url,
  priceId: row.price_id,
  successUrl: row.success_url,
  cancelUrl: row.cancel_url,
  trialDays: row.trial_days,
  expiresAt: row.expires_at,
});

export function checkoutSessionsRepository(db: SqlClient): CheckoutSessionsRepository {
  return {
    async findOpen(userId, now) {
      const [row] = await db.query<Row>(
        `SELECT * FROM checkout_sessions WHERE user_id = $1 AND status = 'open' AND expires_at > $2 ORDER BY created_at DESC LIMIT 1`,
        [userId, now],
      );
      return row ? toRecord(row) : null;
    },
    async countForUser(userId) {
      const [row] = await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM checkout_sessions WHERE user_id = $1',
        [userId],
      );
      return row?.n ?? 0;
    },
    async insert(s) {
      await db.query(
        `INSERT INTO checkout_sessions (id, user_id, url, price_id, success_url, cancel_url, expires_at, trial_days)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING`,
        [s.id, s.userId, s.url, s.priceId, s.successUrl, s.cancelUrl, s.expiresAt, s.trialDays],
      );
    },
    async userOf(sessionId) {
      const [row] = await db.query<{ user_id: string }>(
        'SELECT user_id FROM checkout_sessions WHERE id = $1',
        [sessionId],
      );
      return row?.user_id ?? null;
    },
    async markStatus(id, status) {
      await db.query('UPDATE checkout_sessions SET status = $2 WHERE id = $1', [id, status]);
    },
  };
}
