// Credits (migrations/016): balances, their ledger, packs bought, spends' answers by key.
import type { SubjectRef } from '../../../domain/model.ts';
import {
  NO_CREDITS,
  type CreditBalance,
  type CreditEntry,
  type CreditPurchase,
  type CreditsRepository,
} from '../../../domain/ports/credits.ts';
import { deleteInBatches } from '../batch-delete.ts';
import type { SqlClient } from '../sql-client.ts';

interface BalanceRow {
  grant_amount: string;
  grant_remaining: string;
  grant_expires_at: Date | null;
  grant_source: string | null;
  purchased: string;
  depleted: boolean;
}

const BALANCE_COLUMNS = `grant_amount, grant_remaining, grant_expires_at, grant_source, purchased,
  depleted`;

const toBalance = (row: BalanceRow | undefined): CreditBalance =>
  row === undefined
    ? NO_CREDITS
    : {
        grant:
          row.grant_expires_at === null || row.grant_source === null
            ? null
            : {
                amount: Number(row.grant_amount),
                remaining: Number(row.grant_remaining),
                expiresAt: row.grant_expires_at,
                source: row.grant_source,
              },
        purchased: Number(row.purchased),
        depleted: row.depleted,
      };

// Made on first sight; either way the row is locked until the transaction ends.
const LOCK = `
  INSERT INTO credit_balances (subject_type, subject_id) VALUES ($1, $2)
  ON CONFLICT (subject_type, subject_id) DO UPDATE SET depleted = credit_balances.depleted
  RETURNING ${BALANCE_COLUMNS}`;

// The balance and its entries in one statement: the entries come as one JSON array.
const WRITE = `
  WITH balance AS (
    UPDATE credit_balances SET grant_amount = $3, grant_remaining = $4, grant_expires_at = $5,
      grant_source = $6, purchased = $7, depleted = $8
    WHERE subject_type = $1 AND subject_id = $2)
  INSERT INTO credit_entries (subject_type, subject_id, at, kind, amount, balance_after, reason,
    source)
  SELECT $1, $2, e.at, e.kind, e.amount, e.balance_after, e.reason, e.source
  FROM ROWS FROM (jsonb_to_recordset($9::jsonb) AS (at timestamptz, kind text, amount bigint,
    balance_after bigint, reason text, source text)) WITH ORDINALITY
    AS e(at, kind, amount, balance_after, reason, source, n)
  ORDER BY n`;

const ENTRIES = `
  SELECT id::text, at, kind, amount, balance_after, reason, source FROM credit_entries
  WHERE subject_type = $1 AND subject_id = $2 AND ($3::bigint IS NULL OR id < $3::bigint)
  ORDER BY id DESC LIMIT $4`;

// A key taken by a transaction still running makes this insert wait for it to end. What it then
// finds is read by a statement of its own: this one's snapshot predates the other's commit.
const CLAIM_KEY = `
  INSERT INTO credit_spends (idempotency_key, subject_type, subject_id, amount)
  VALUES ($1, $2, $3, $4) ON CONFLICT (idempotency_key) DO NOTHING RETURNING 1`;

const STORED_KEY = `
  SELECT subject_type, subject_id, amount, status, answer FROM credit_spends
  WHERE idempotency_key = $1`;

interface PurchaseRow {
  session_id: string;
  subject_type: SubjectRef['type'];
  subject_id: string;
  pack: string;
  credits: string;
  payment_intent_id: string | null;
  refunded_due: string;
}

const toPurchase = (row: PurchaseRow): CreditPurchase => ({
  sessionId: row.session_id,
  subject: { type: row.subject_type, id: row.subject_id },
  pack: row.pack,
  credits: Number(row.credits),
  paymentIntentId: row.payment_intent_id,
  refundedDue: Number(row.refunded_due),
});

export function creditsRepository(db: SqlClient): CreditsRepository {
  const ref = (subject: SubjectRef) => [subject.type, subject.id];
  return {
    async find(subject) {
      const [row] = await db.query<BalanceRow>(
        `SELECT ${BALANCE_COLUMNS} FROM credit_balances WHERE subject_type = $1 AND subject_id = $2`,
        ref(subject),
      );
      return toBalance(row);
    },
    async lock(subject) {
      const [row] = await db.query<BalanceRow>(LOCK, ref(subject));
      return toBalance(row);
    },
    async write(subject, { grant, purchased, depleted }, entries) {
      const rows = entries.map((entry) => ({
        at: entry.at.toISOString(),
        kind: entry.kind,
        amount: entry.amount,
        balance_after: entry.balanceAfter,
        reason: entry.reason,
        source: entry.source,
      }));
      await db.query(WRITE, [
        ...ref(subject),
        grant?.amount ?? 0,
        grant?.remaining ?? 0,
        grant?.expiresAt ?? null,
        grant?.source ?? null,
        purchased,
        depleted,
        JSON.stringify(rows),
      ]);
    },
    async hasSource(subject, source) {
      const rows = await db.query(
        'SELECT 1 FROM credit_entries WHERE subject_type = $1 AND subject_id = $2 AND source = $3',
        [...ref(subject), source],
      );
      return rows.length > 0;
    },
    async entries(subject, limit, before) {
      const rows = await db.query<{
        id: string;
        at: Date;
        kind: CreditEntry['kind'];
        amount: string;
        balance_after: string;
        reason: string | null;
        source: string | null;
      }>(ENTRIES, [...ref(subject), before, limit]);
      return rows.map((row) => ({
        id: row.id,
        at: row.at,
        kind: row.kind,
        amount: Number(row.amount),
        balanceAfter: Number(row.balance_after),
        reason: row.reason,
        source: row.source,
      }));
    },
    async recordPurchase({ sessionId, subject, pack, credits, paymentIntentId }) {
      const rows = await db.query(
        `INSERT INTO credit_purchases (session_id, subject_type, subject_id, pack, credits,
           payment_intent_id) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (session_id) DO NOTHING RETURNING 1`,
        [sessionId, ...ref(subject), pack, credits, paymentIntentId],
      );
      return rows.length > 0;
    },
    async purchaseByPayment(paymentIntentId) {
      const [row] = await db.query<PurchaseRow>(
        'SELECT * FROM credit_purchases WHERE payment_intent_id = $1 FOR UPDATE',
        [paymentIntentId],
      );
      return row === undefined ? null : toPurchase(row);
    },
    async setRefundedDue(sessionId, due) {
      await db.query('UPDATE credit_purchases SET refunded_due = $2 WHERE session_id = $1', [
        sessionId,
        due,
      ]);
    },
    async claimSpendKey(key, subject, amount) {
      if ((await db.query(CLAIM_KEY, [key, ...ref(subject), amount])).length > 0) return null;
      const [row] = await db.query<{
        subject_type: SubjectRef['type'];
        subject_id: string;
        amount: string;
        status: number;
        answer: string;
      }>(STORED_KEY, [key]);
      if (row === undefined) throw new Error(`spend key ${key} taken, then gone`);
      return {
        subject: { type: row.subject_type, id: row.subject_id },
        amount: Number(row.amount),
        status: row.status,
        answer: row.answer,
      };
    },
    async answerSpend(key, status, answer) {
      await db.query(
        'UPDATE credit_spends SET status = $2, answer = $3 WHERE idempotency_key = $1',
        [key, status, answer],
      );
    },
    forgetSpendKeys: (before, signal) =>
      deleteInBatches(db, 'credit_spends', 'created_at < $1', [before], signal),
  };
}
