// Credits' ledger as read (migrations/016): a subject's entries, newest first, and whether a source
// (an invoice, a checkout session, a refund) was entered already.
import type { SubjectRef } from '../../../domain/model/callers.ts';
import type { CreditEntry } from '../../../domain/ports/credits.ts';
import type { SqlClient } from '../sql-client.ts';
import type { Ref } from './credit-purchases.ts';

const ENTRIES = `
  SELECT id::text, at, kind, amount, balance_after, reason, source FROM credit_entries
  WHERE subject_type = $1 AND subject_id = $2 AND ($3::bigint IS NULL OR id < $3::bigint)
  ORDER BY credit_entries.id DESC LIMIT $4`;

interface EntryRow {
  id: string;
  at: Date;
  kind: CreditEntry['kind'];
  amount: string;
  balance_after: string;
  reason: string | null;
  source: string | null;
}

const toEntry = (row: EntryRow): CreditEntry => ({
  id: row.id,
  at: row.at,
  kind: row.kind,
  amount: Number(row.amount),
  balanceAfter: Number(row.balance_after),
  reason: row.reason,
  source: row.source,
});

export function ledger(db: SqlClient, ref: Ref) {
  return {
    async hasSource(subject: SubjectRef, source: string) {
      const rows = await db.query(
        'SELECT 1 FROM credit_entries WHERE subject_type = $1 AND subject_id = $2 AND source = $3',
        [...ref(subject), source],
      );
      return rows.length > 0;
    },
    async entries(subject: SubjectRef, limit: number, before: string | null) {
      const rows = await db.query<EntryRow>(ENTRIES, [...ref(subject), before, limit]);
      return rows.map(toEntry);
    },
  };
}
