// What credits are for sale and granted: BILLING_CREDIT_PACKS's packs, and each tier's grant
// (the entitlements file's `credits`).
import type { CreditRules } from './credit-changes.ts';

export interface CreditPack {
  name: string;
  /** Its one-time price at the provider. */
  price: string;
  credits: number;
}

export interface CreditsPolicy extends CreditRules {
  /** In BILLING_CREDIT_PACKS's order. */
  packs: readonly CreditPack[];
}

export const packNamed = (policy: CreditsPolicy, name: string): CreditPack | null =>
  policy.packs.find((pack) => pack.name === name) ?? null;
