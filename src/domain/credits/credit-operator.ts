// The operator's view of a subject's credits (`credits show`) and hand adjustments (`credits
// adjust`): an `adjustment` entry with the operator's reason, added as purchased credits or taken
// as a spend is (the grant first), never below zero.
import type { TierPolicy } from '../billing/tier.ts';
import { UnknownOrganizationError, UnknownUserError } from '../billing/operator-errors.ts';
import type { CreditBalance, CreditEntry } from '../ports/credits.ts';
import type { Store } from '../ports/store.ts';
import { changeCredits, type CreditHolder } from './credit-changes.ts';
import { holderOf } from './credit-holders.ts';
import type { CreditsPolicy } from './credit-packs.ts';

/** `user:<idp_id>` or `org:<idp_org_id>`, as an operator names a subject. */
export interface OperatorSubject {
  type: 'user' | 'organization';
  idpId: string;
}

export class CreditAdjustmentRefused extends Error {
  override name = 'CreditAdjustmentRefused';
}

export interface CreditOperatorDeps {
  store: Store;
  policy: TierPolicy;
  credits: CreditsPolicy;
  /** The issuer organisations are keyed by; null: organisations are off. */
  issuer: string | null;
}

export async function findHolder(
  { store, policy, issuer }: CreditOperatorDeps,
  { type, idpId }: OperatorSubject,
  now: Date,
): Promise<CreditHolder> {
  if (type === 'user') {
    const user = await store.users.findByIdpId(idpId);
    if (user === null) throw new UnknownUserError(idpId);
    return holderOf(user, policy, now);
  }
  const organization =
    issuer === null ? null : await store.organizations.findByIdpOrgId(issuer, idpId);
  if (organization === null) throw new UnknownOrganizationError(idpId);
  return holderOf(organization, policy, now);
}

/** The subject's balance now (an expired grant ended, the free month granted when due) and its newest entries. */
export async function showCredits(
  deps: CreditOperatorDeps,
  subject: OperatorSubject,
  now = new Date(),
): Promise<{ holder: CreditHolder; balance: CreditBalance; entries: CreditEntry[] }> {
  const holder = await findHolder(deps, subject, now);
  const { account } = await deps.store.transaction((tx) =>
    changeCredits(tx, holder, { rules: deps.credits, now }, () => {}),
  );
  const entries = await deps.store.credits.entries(holder, 20, null);
  return { holder, balance: account.balance, entries };
}

/** Adds (`delta` > 0) or takes credits; the balance after. */
export async function adjustCredits(
  deps: CreditOperatorDeps,
  subject: OperatorSubject,
  { delta, reason }: { delta: number; reason: string },
  now = new Date(),
): Promise<number> {
  const holder = await findHolder(deps, subject, now);
  const { result, account } = await deps.store.transaction((tx) =>
    changeCredits(tx, holder, { rules: deps.credits, now }, (credits) => {
      if (delta < 0) return credits.take('adjustment', -delta, reason);
      credits.add('adjustment', delta, null, reason);
      return true;
    }),
  );
  if (!result)
    throw new CreditAdjustmentRefused(
      `refused: taking ${-delta} would take the balance of ${account.total} below zero`,
    );
  return account.total;
}
