// Credits (migrations/016): balances, each written with its new ledger entries; the ledger's reads in
// credit-ledger.ts; packs bought and spends' answers by key in credit-purchases.ts.
import type { SubjectRef } from '../../../domain/model/callers.ts';
import {
  NO_CREDITS,
  type CreditBalance,
  type CreditsRepository,
  type NewCreditEntry,
} from '../../../domain/ports/credits.ts';
import { purchases, spends, type Ref } from './credit-purchases.ts';
import { ledger } from './credit-ledger.ts';
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

function balances(db: SqlClient, ref: Ref) {
  return {
    async find(subject: SubjectRef) {
      const [row] = await db.query<BalanceRow>(
        `SELECT ${BALANCE_COLUMNS} FROM credit_balances WHERE subject_type = $1 AND subject_id = $2`,
        ref(subject),
      );
      return toBalance(row);
    },
    async lock(subject: SubjectRef) {
      const [row] = await db.query<BalanceRow>(LOCK, ref(subject));
      return toBalance(row);
    },
    async write(
      subject: SubjectRef,
      { grant, purchased, depleted }: CreditBalance,
      entries: NewCreditEntry[],
    ) {
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
  };
}

export function creditsRepository(db: SqlClient): CreditsRepository {
  const ref: Ref = (subject) => [subject.type, subject.id];
  return {
    ...balances(db, ref),
    ...ledger(db, ref),
    ...purchases(db, ref),
    ...spends(db, ref),
  };
}
