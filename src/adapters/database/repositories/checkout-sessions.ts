// Checkout sessions we opened, so a second click can return the same still-open session.
import type { CheckoutSessionRecord, SubjectRef } from '../../../domain/model.ts';
import type { CheckoutSessionsRepository } from '../../../domain/ports/store.ts';
import type { SqlClient } from '../sql-client.ts';

interface Row {
  id: string;
  user_id: string | null;
  organization_id: string | null;
  url: string;
  price_id: string;
  quantity: number | null;
  success_url: string;
  cancel_url: string;
  trial_days: number | null;
  expires_at: Date;
}

const toRecord = (row: Row): CheckoutSessionRecord => ({
  id: row.id,
  owner:
    row.user_id !== null
      ? { type: 'user', id: row.user_id }
      : { type: 'organization', id: row.organization_id! },
  url: row.url,
  priceId: row.price_id,
  quantity: row.quantity ?? 1,
  successUrl: row.success_url,
  cancelUrl: row.cancel_url,
  trialDays: row.trial_days,
  expiresAt: row.expires_at,
});

/** The column naming who pays. */
const ownerColumn = (owner: SubjectRef) => (owner.type === 'user' ? 'user_id' : 'organization_id');

export function checkoutSessionsRepository(db: SqlClient): CheckoutSessionsRepository {
  return {
    async findOpen(owner, now) {
      const [row] = await db.query<Row>(
        `SELECT * FROM checkout_sessions WHERE ${ownerColumn(owner)} = $1 AND status = 'open' AND expires_at > $2 ORDER BY created_at DESC LIMIT 1`,
        [owner.id, now],
      );
      return row ? toRecord(row) : null;
    },
    async countFor(owner) {
      const [row] = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM checkout_sessions WHERE ${ownerColumn(owner)} = $1`,
        [owner.id],
      );
      return row?.n ?? 0;
    },
    async insert(s) {
      const user = s.owner.type === 'user' ? s.owner.id : null;
      const organization = s.owner.type === 'organization' ? s.owner.id : null;
      await db.query(
        `INSERT INTO checkout_sessions (id, user_id, organization_id, url, price_id, quantity,
           success_url, cancel_url, expires_at, trial_days)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING`,
        [
          s.id,
          user,
          organization,
          s.url,
          s.priceId,
          s.quantity,
          s.successUrl,
          s.cancelUrl,
          s.expiresAt,
          s.trialDays,
        ],
      );
    },
    async userOf(sessionId) {
      const [row] = await db.query<{ user_id: string | null }>(
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
