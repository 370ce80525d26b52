// A caller's credits: the balance (reading it may end an expired grant or make the free month's),
// the ledger, and a pack's checkout. The body of a checkout names a pack, never a price, an amount,
// a quantity or a subject; only an organisation's managers buy for it.
import { randomUUID } from 'node:crypto';
import { customerOf } from '../billing/billing-subject.ts';
import { checkoutReturnUrls, type CheckoutInput } from '../billing/redirect-urls.ts';
import { DomainError } from '../errors.ts';
import type { Principal, SubjectRef } from '../model/callers.ts';
import { requireManager } from '../organizations/roles.ts';
import { spendable, type CreditEntry, type CreditGrant } from '../ports/credits.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { Store } from '../ports/store.ts';
import { changeCredits, mayChangeOnRead, type CreditHolder } from './credit-changes.ts';
import type { CreditHolders } from './credit-holders.ts';
import { packNamed, type CreditsPolicy } from './credit-packs.ts';
import type { PackPrice, PackPrices } from './pack-prices.ts';

export interface CreditsSummary {
  subject: SubjectRef;
  balance: number;
  grant: Omit<CreditGrant, 'source'> | null;
  purchased: number;
  packs: { name: string; credits: number; price: PackPrice | null }[];
}

export interface LedgerPage {
  entries: CreditEntry[];
  /** The entry to read on from (`before`); null after the oldest. */
  next: string | null;
}

export interface PackCheckoutInput extends CheckoutInput {
  pack: string;
}

export interface CreditsSettings {
  appUrl: string;
  allowedOrigins: readonly string[];
  automaticTax: boolean;
  /** The roles that may buy for an organisation; [] when organisations are off. */
  managerRoles: readonly string[];
}

export interface CreditsDeps {
  store: Store;
  holders: CreditHolders;
  payments: PaymentsProvider;
  policy: CreditsPolicy;
  prices: PackPrices;
  settings: CreditsSettings;
}

const subjectOf = (holder: CreditHolder): SubjectRef => ({ type: holder.type, id: holder.id });

export class CreditsService {
  constructor(private readonly deps: CreditsDeps) {}

  async summary(principal: Principal, now = new Date()): Promise<CreditsSummary> {
    const { holder } = await this.deps.holders.ofCaller(principal, now);
    const balance = await this.current(holder, now);
    const { grant, purchased } = balance;
    return {
      subject: subjectOf(holder),
      balance: spendable(balance),
      grant: grant && {
        amount: grant.amount,
        remaining: grant.remaining,
        expiresAt: grant.expiresAt,
      },
      purchased,
      packs: this.deps.policy.packs.map(({ name, credits }) => ({
        name,
        credits,
        price: this.deps.prices.priceOf(name),
      })),
    };
  }

  async ledger(
    principal: Principal,
    { limit, before }: { limit: number; before: string | null },
    now = new Date(),
  ): Promise<LedgerPage> {
    const { holder } = await this.deps.holders.ofCaller(principal, now);
    await this.current(holder, now);
    const found = await this.deps.store.credits.entries(subjectOf(holder), limit + 1, before);
    const entries = found.slice(0, limit);
    return { entries, next: found.length > limit ? entries.at(-1)!.id : null };
  }

  async checkout(principal: Principal, input: PackCheckoutInput, now = new Date()) {
    const { policy, settings, store, payments } = this.deps;
    if (policy.packs.length === 0)
      throw new DomainError(
        'credits_not_for_sale',
        'No credit packs are for sale on this service: BILLING_CREDIT_PACKS is unset',
      );
    const pack = packNamed(policy, input.pack);
    if (pack === null)
      throw new DomainError(
        'invalid_field',
        `Unknown pack: the packs are ${policy.packs.map((p) => p.name).join(', ')}`,
        {
          field: 'pack',
          type: 'enum',
          input: input.pack,
        },
      );
    const urls = checkoutReturnUrls(input, settings);
    const { subject, role } = await this.deps.holders.ofCaller(principal, now);
    if (subject.ref.type === 'organization')
      requireManager(role, settings.managerRoles, 'Buying credits for your organisation');
    const session = await payments.createPackCheckoutSession(
      {
        customerId: await customerOf(subject, store, payments),
        owner: subject.ref,
        pack: pack.name,
        priceId: pack.price,
        ...urls,
        automaticTax: settings.automaticTax,
      },
      // Each click its own purchase; the key makes the SDK's retries of one click one session.
      `credits:${subject.keyPrefix}:${pack.name}:${randomUUID()}`,
    );
    return { url: session.url };
  }

  /** The holder's balance now: an expired grant ended, the free month granted, when due. */
  private async current(holder: CreditHolder, now: Date) {
    const { store, policy } = this.deps;
    const stored = await store.credits.find(subjectOf(holder));
    if (!mayChangeOnRead(stored, holder, policy, now)) return stored;
    const change = await store.transaction((tx) =>
      changeCredits(tx, holder, { rules: policy, now }, () => {}),
    );
    return change.account.balance;
  }
}
