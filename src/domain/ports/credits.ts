// Credits as the domain needs them stored (migrations/016): a balance per subject, locked while it
// changes, the ledger of its entries, the packs bought, and spends' answers by idempotency key.
import type { SubjectRef } from '../model/callers.ts';

export interface CreditGrant {
  amount: number;
  remaining: number;
  expiresAt: Date;
  /** What it was granted for: `invoice:<id>` or `free:<YYYY-MM>`. */
  source: string;
}

export interface CreditBalance {
  grant: CreditGrant | null;
  purchased: number;
  /** The application was told the balance ran out, and it has not been above zero since. */
  depleted: boolean;
}

export type CreditEntryKind = 'grant' | 'purchase' | 'spend' | 'expiry' | 'refund' | 'adjustment';

export interface NewCreditEntry {
  at: Date;
  kind: CreditEntryKind;
  amount: number;
  balanceAfter: number;
  reason: string | null;
  /** What it counts once for (a second entry of one source is refused); null: no such rule. */
  source: string | null;
}

export interface CreditEntry extends NewCreditEntry {
  id: string;
}

export interface CreditPurchase {
  sessionId: string;
  subject: SubjectRef;
  pack: string;
  credits: number;
  paymentIntentId: string | null;
  /** What the refunds seen so far were due, together. */
  refundedDue: number;
}

/** A spend's idempotency key as stored: who spent, how much, and the answer given. */
export interface StoredSpend {
  subject: SubjectRef;
  amount: number;
  status: number;
  answer: string;
}

export const NO_CREDITS: CreditBalance = { grant: null, purchased: 0, depleted: false };

/** What may be spent: what is left of the grant, and purchased credits. */
export const spendable = ({ grant, purchased }: CreditBalance): number =>
  (grant?.remaining ?? 0) + purchased;

export interface CreditsRepository {
  /** The subject's balance as stored, unlocked (NO_CREDITS when it has none). */
  find(subject: SubjectRef): Promise<CreditBalance>;
  /** The subject's balance, made on first sight and locked until the transaction ends. */
  lock(subject: SubjectRef): Promise<CreditBalance>;
  /** Under the lock: stores the balance and appends its entries, in order, in one statement. */
  write(subject: SubjectRef, balance: CreditBalance, entries: NewCreditEntry[]): Promise<void>;
  /** Whether the subject has an entry of this source. */
  hasSource(subject: SubjectRef, source: string): Promise<boolean>;
  /** Newest first, those before the entry `before` (null: from the newest). */
  entries(subject: SubjectRef, limit: number, before: string | null): Promise<CreditEntry[]>;
  /** Records a pack bought; false when its session is recorded already. */
  recordPurchase(purchase: Omit<CreditPurchase, 'refundedDue'>): Promise<boolean>;
  /** The purchase paid by this payment, locked until the transaction ends. */
  purchaseByPayment(paymentIntentId: string): Promise<CreditPurchase | null>;
  setRefundedDue(sessionId: string, due: number): Promise<void>;
  /**
   * Takes the idempotency key for a spend: null when it is new (its answer to be stored in the same
   * transaction), else the spend stored under it, once the transaction that took it has ended.
   */
  claimSpendKey(key: string, subject: SubjectRef, amount: number): Promise<StoredSpend | null>;
  answerSpend(key: string, status: number, answer: string): Promise<void>;
  /** Forgets spends' keys taken before `before`, a batch at a time; how many it forgot. */
  forgetSpendKeys(before: Date, signal: AbortSignal): Promise<number>;
}
