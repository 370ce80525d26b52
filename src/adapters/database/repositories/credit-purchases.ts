// Credits (migrations/016): the packs bought (what a refund takes back from) and spends' answers by
// idempotency key.
import type { SubjectRef } from '../../../domain/model/callers.ts';
import type { CreditPurchase } from '../../../domain/ports/credits.ts';
import { deleteInBatches } from '../batch-delete.ts';
import type { SqlClient } from '../sql-client.ts';

/** A subject as the statements' first two parameters. */
export type Ref = (subject: SubjectRef) => string[];

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

interface SpendRow {
  subject_type: SubjectRef['type'];
  subject_id: string;
  amount: string;
  status: number;
  answer: string;
}

const toPurchase = (row: PurchaseRow): CreditPurchase => ({
  sessionId: row.session_id,
  subject: { type: row.subject_type, id: row.subject_id },
  pack: row.pack,
  credits: Number(row.credits),
  paymentIntentId: row.payment_intent_id,
  refundedDue: Number(row.refunded_due),
});

export function purchases(db: SqlClient, ref: Ref) {
  return {
    async recordPurchase({
      sessionId,
      subject,
      pack,
      credits,
      paymentIntentId,
    }: Omit<CreditPurchase, 'refundedDue'>) {
      const rows = await db.query(
        `INSERT INTO credit_purchases (session_id, subject_type, subject_id, pack, credits,
           payment_intent_id) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (session_id) DO NOTHING RETURNING 1`,
        [sessionId, ...ref(subject), pack, credits, paymentIntentId],
      );
      return rows.length > 0;
    },
    async purchaseByPayment(paymentIntentId: string) {
      const [row] = await db.query<PurchaseRow>(
        'SELECT * FROM credit_purchases WHERE payment_intent_id = $1 FOR UPDATE',
        [paymentIntentId],
      );
      return row === undefined ? null : toPurchase(row);
    },
    async setRefundedDue(sessionId: string, due: number) {
      await db.query('UPDATE credit_purchases SET refunded_due = $2 WHERE session_id = $1', [
        sessionId,
        due,
      ]);
    },
  };
}

export function spends(db: SqlClient, ref: Ref) {
  return {
    async claimSpendKey(key: string, subject: SubjectRef, amount: number) {
      if ((await db.query(CLAIM_KEY, [key, ...ref(subject), amount])).length > 0) return null;
      const [row] = await db.query<SpendRow>(STORED_KEY, [key]);
      if (row === undefined) throw new Error(`spend key ${key} taken, then gone`);
      return {
        subject: { type: row.subject_type, id: row.subject_id },
        amount: Number(row.amount),
        status: row.status,
        answer: row.answer,
      };
    },
    async answerSpend(key: string, status: number, answer: string) {
      await db.query(
        'UPDATE credit_spends SET status = $2, answer = $3 WHERE idempotency_key = $1',
        [key, status, answer],
      );
    },
    forgetSpendKeys: (before: Date, signal: AbortSignal) =>
      deleteInBatches(db, 'credit_spends', 'created_at < $1', [before], signal),
  };
}
