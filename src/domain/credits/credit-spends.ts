// A spend by the application's backend: one transaction, no provider call. Its idempotency key is
// taken first, so the same key again gets the first answer, status and body, even while the first
// is still running (the second waits for it); the same key with another amount or subject is
// refused. The balance row's lock makes concurrent spends of one subject, on any instance, take
// turns: none takes the balance below zero, none is lost.
import { DomainError } from '../errors.ts';
import type { Metrics } from '../ports/metrics.ts';
import type { StoredSpend } from '../ports/credits.ts';
import type { Repositories, Store } from '../ports/store.ts';
import { changeCredits, type CreditHolder } from './credit-changes.ts';
import type { CreditHolders, NamedHolder } from './credit-holders.ts';
import type { CreditsPolicy } from './credit-packs.ts';

export interface SpendInput {
  subject: NamedHolder;
  amount: number;
  idempotency_key: string;
  reason?: string;
}

export type SpendAnswer =
  | { status: 200; body: { balance: number } }
  | { status: 402; body: { detail: string; balance: number } };

export class CreditSpends {
  constructor(
    private readonly store: Store,
    private readonly holders: CreditHolders,
    private readonly policy: CreditsPolicy,
    private readonly metrics: Pick<Metrics, 'credits'>,
  ) {}

  async spend(input: SpendInput, now = new Date()): Promise<SpendAnswer> {
    const holder = await this.holders.named(input.subject, now);
    const answer = await this.store.transaction(async (tx) => {
      const key = input.idempotency_key;
      const stored = await tx.credits.claimSpendKey(key, holder, input.amount);
      if (stored !== null) return replayed(stored, holder, input.amount);
      const fresh = await this.take(tx, holder, input, now);
      await tx.credits.answerSpend(key, fresh.status, JSON.stringify(fresh.body));
      return fresh;
    });
    if (answer.status === 402) this.metrics.credits('refused', input.amount);
    return answer;
  }

  private async take(
    tx: Repositories,
    holder: CreditHolder,
    { amount, reason }: SpendInput,
    now: Date,
  ): Promise<SpendAnswer> {
    const { result: spent, account } = await changeCredits(
      tx,
      holder,
      { rules: this.policy, now },
      (credits) => credits.take('spend', amount, reason ?? null),
      (taken) => !taken,
    );
    const balance = account.total;
    if (spent) return { status: 200, body: { balance } };
    return {
      status: 402,
      body: {
        detail: `Not enough credits: the balance is ${balance}, the spend ${amount}`,
        balance,
      },
    };
  }
}

/** The first answer under the key, when the request is the same one again. */
function replayed(stored: StoredSpend, holder: CreditHolder, amount: number): SpendAnswer {
  if (
    stored.subject.type !== holder.type ||
    stored.subject.id !== holder.id ||
    stored.amount !== amount
  )
    throw new DomainError(
      'idempotency_key_reused',
      'This idempotency key was used for another spend (another amount or subject): use a new key for a new spend',
    );
  return { status: stored.status, body: JSON.parse(stored.answer) } as SpendAnswer;
}
