// Every change of a subject's credits goes through here, inside a transaction: the balance row
// locked (so a subject's changes take turns on any instance), an expired grant ended and the free
// tier's month granted when due, the change worked on the account, then what changed stored and,
// with the same commit, what the application is told (`credits.depleted` once the balance runs out).
// A transaction locks the balance before the subject's outbox record, never after: the other
// order beside a spend could deadlock.
import { FREE_TIER } from '../billing/tier.ts';
import { draftEvent, type EventData, type EventSubject } from '../events/app-events.ts';
import type { CreditBalance } from '../ports/credits.ts';
import type { Metrics } from '../ports/metrics.ts';
import type { Repositories } from '../ports/store.ts';
import { CreditAccount } from './credit-account.ts';

/** Whose credits, as events name them, and the tier the free month's grant follows. */
export interface CreditHolder extends EventSubject {
  tier: string;
}

export interface CreditRules {
  /** The credits a tier grants each period (the free tier's: each calendar month). */
  creditsOf(tier: string): number;
  /** Counts what a change wrote, for operators (metrics). */
  metrics: Pick<Metrics, 'credits'>;
}

export interface CreditChange<T> {
  result: T;
  account: CreditAccount;
}

const ref = (holder: CreditHolder) => ({ type: holder.type, id: holder.id });

/** The first instant of the UTC month after `now`'s. */
const nextMonth = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1));

/** The free tier's grant of `now`'s UTC month, once: `free:2026-11`. */
const freeMonth = (now: Date) =>
  `free:${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;

/** Whether a read must go through a transaction: an expired grant to end, or a free month maybe due. */
export function mayChangeOnRead(
  balance: CreditBalance,
  holder: CreditHolder,
  rules: CreditRules,
  now: Date,
): boolean {
  const { grant } = balance;
  if (grant !== null) return grant.expiresAt <= now;
  return freeTierGrants(holder, rules);
}

const freeTierGrants = (holder: CreditHolder, rules: CreditRules) =>
  holder.tier === FREE_TIER && rules.creditsOf(FREE_TIER) > 0;

/** While free and holding no grant, this month's, once (it expires at the month's end). */
async function grantFreeMonth(
  tx: Repositories,
  holder: CreditHolder,
  account: CreditAccount,
  rules: CreditRules,
  now: Date,
): Promise<void> {
  if (account.balance.grant !== null || !freeTierGrants(holder, rules)) return;
  const source = freeMonth(now);
  if (await tx.credits.hasSource(ref(holder), source)) return;
  account.grant({
    amount: rules.creditsOf(FREE_TIER),
    expiresAt: nextMonth(now),
    source,
    reason: `the free tier's credits for ${source.slice('free:'.length)}`,
  });
}

/**
 * Works `work` on the holder's account under its lock, stores what changed, and tells the
 * application what `work` adds to `told` and, when the balance ran out, `credits.depleted`; `refused` says whether the work was a spend refused for want of
 * credits (which tells `credits.depleted` too).
 */
export async function changeCredits<T>(
  tx: Repositories,
  holder: CreditHolder,
  { rules, now }: { rules: CreditRules; now: Date },
  work: (account: CreditAccount, told: EventData[]) => T | Promise<T>,
  refused: (result: T) => boolean = () => false,
): Promise<CreditChange<T>> {
  const locked = await tx.credits.lock(ref(holder));
  const account = new CreditAccount(locked, now);
  await grantFreeMonth(tx, holder, account, rules, now);
  const told: EventData[] = [];
  const result = await work(account, told);
  if (account.depletedNow(refused(result)))
    told.push({ type: 'credits.depleted', data: { balance: account.total } });
  if (account.entries.length > 0 || !sameBalance(locked, account.balance))
    await tx.credits.write(ref(holder), account.balance, account.entries);
  await tell(tx, holder, told, now);
  for (const { kind, amount } of account.entries) rules.metrics.credits(kind, amount);
  return { result, account };
}

async function tell(tx: Repositories, holder: CreditHolder, events: EventData[], now: Date) {
  if (events.length === 0) return;
  const { type, id, idp_id } = holder;
  const about = { type, id, idp_id };
  const drafts = events.map((event) => draftEvent(about, event, now));
  await tx.outbox.append(ref(holder), drafts, now);
}

const sameBalance = (a: CreditBalance, b: CreditBalance) =>
  a.purchased === b.purchased &&
  a.depleted === b.depleted &&
  a.grant?.remaining === b.grant?.remaining &&
  a.grant?.source === b.grant?.source;
