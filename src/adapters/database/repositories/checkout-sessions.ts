// Checkout sessions we opened, so a second click can return the same still-open session; at most
// one of a subject's is open (unique indexes), and the subject's lock orders those who record one.
import type { CheckoutSessionRecord } from '../../../domain/model/checkout.ts';
import type { SubjectRef } from '../../../domain/model/callers.ts';
import type { CheckoutSessionsRepository } from '../../../domain/ports/checkout-sessions.ts';
import type { SqlClient, SqlParam } from '../sql-client.ts';

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

/** Open, and its time has not run out. */
const LIVE = `status = 'open' AND expires_at > $2`;

const INSERT = `
  INSERT INTO checkout_sessions (id, user_id, organization_id, url, price_id, quantity,
    success_url, cancel_url, expires_at, trial_days, status)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING`;

function insertValues(s: CheckoutSessionRecord, status: string): SqlParam[] {
  const user = s.owner.type === 'user' ? s.owner.id : null;
  const organization = s.owner.type === 'organization' ? s.owner.id : null;
  const { id, url, priceId, quantity, successUrl, cancelUrl, expiresAt, trialDays } = s;
  return [
    id,
    user,
    organization,
    url,
    priceId,
    quantity,
    successUrl,
    cancelUrl,
    expiresAt,
    trialDays,
    status,
  ];
}

export function checkoutSessionsRepository(db: SqlClient): CheckoutSessionsRepository {
  return {
    async findOpen(owner, now) {
      const [row] = await db.query<Row>(
        `SELECT * FROM checkout_sessions WHERE ${ownerColumn(owner)} = $1 AND ${LIVE}`,
        [owner.id, now],
      );
      return row ? toRecord(row) : null;
    },
    async lockOpen(owner, now) {
      await db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `checkout:${owner.type}:${owner.id}`,
      ]);
      await db.query(
        `UPDATE checkout_sessions SET status = 'expired'
         WHERE ${ownerColumn(owner)} = $1 AND status = 'open' AND expires_at <= $2`,
        [owner.id, now],
      );
      return this.findOpen(owner, now);
    },
    async closedCount(owner, now) {
      const [row] = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM checkout_sessions
         WHERE ${ownerColumn(owner)} = $1 AND NOT (${LIVE})`,
        [owner.id, now],
      );
      return row?.n ?? 0;
    },
    async replacedOf(owner) {
      const rows = await db.query<{ id: string }>(
        `SELECT id FROM checkout_sessions WHERE ${ownerColumn(owner)} = $1 AND status = 'replaced'`,
        [owner.id],
      );
      return rows.map((row) => row.id);
    },
    async othersOf(sessionId) {
      const rows = await db.query<{ id: string }>(
        `SELECT s.id FROM checkout_sessions s JOIN checkout_sessions mine ON mine.id = $1
         WHERE s.id <> mine.id AND s.status IN ('open', 'replaced')
           AND (s.user_id = mine.user_id OR s.organization_id = mine.organization_id)`,
        [sessionId],
      );
      return rows.map((row) => row.id);
    },
    async insert(session, status = 'open') {
      await db.query(INSERT, insertValues(session, status));
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
