// What each pack costs, as the provider has its price: learnt at start-up, where each pack's price
// is checked as BILLING_PRICES's are (it exists, it is one-time, in the plans' currency; a mismatch
// stops start-up naming the variable and the price). A provider that does not answer then leaves
// the amounts to be learnt by the first read that wants them.
import { PriceMismatchError } from '../billing/provider-setup.ts';
import { DomainError } from '../errors.ts';
import type { Logger } from '../ports/logger.ts';
import type { PaymentsProvider, ProviderPrice } from '../ports/payments-provider.ts';
import type { CreditPack } from './credit-packs.ts';

export interface PackPrice {
  amount: number;
  currency: string;
}

const mismatch = (message: string) => new PriceMismatchError(message, 'BILLING_CREDIT_PACKS');

export class PackPrices {
  private known: ReadonlyMap<string, PackPrice> | null = null;
  private learning: Promise<void> | null = null;

  constructor(
    private readonly payments: PaymentsProvider,
    private readonly packs: readonly CreditPack[],
    /** A price of the plans, whose currency the packs must share; null: none to compare. */
    private readonly planPrice: string | null,
    private readonly log: Pick<Logger, 'warn'>,
  ) {}

  async startUp(): Promise<void> {
    if (this.packs.length === 0) return;
    try {
      await this.learn();
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      this.log.warn(
        { err: error },
        `the payment provider did not answer at start-up: BILLING_CREDIT_PACKS not checked against it, their prices learnt later`,
      );
    }
  }

  /** Each pack's price (null until learnt: then the provider is asked again, in the background). */
  priceOf(pack: string): PackPrice | null {
    if (this.known === null && this.packs.length > 0)
      this.learning ??= this.learn()
        .catch(() => {})
        .finally(() => {
          this.learning = null;
        });
    return this.known?.get(pack) ?? null;
  }

  /** The plan's price and every pack's, asked at once; then checked in BILLING_CREDIT_PACKS's order. */
  private async learn(): Promise<void> {
    const { payments, planPrice } = this;
    const [plan, ...prices] = await Promise.all([
      planPrice === null ? null : payments.retrievePrice(planPrice),
      ...this.packs.map((pack) => payments.retrievePrice(pack.price)),
    ]);
    this.known = new Map(
      this.packs.map((pack, i) => [pack.name, this.checked(pack, prices[i] ?? null, plan ?? null)]),
    );
  }

  private checked(
    pack: CreditPack,
    price: ProviderPrice | null,
    plan: ProviderPrice | null,
  ): PackPrice {
    if (price === null)
      throw mismatch(`names ${pack.price} (${pack.name}), which the provider does not have`);
    if (!price.oneTime || price.unitAmount === null)
      throw mismatch(
        `names ${pack.price} (${pack.name}), which is not a one-time price of a set amount`,
      );
    if (plan !== null && plan.currency !== price.currency)
      throw mismatch(
        `names ${pack.price} in ${price.currency.toUpperCase()}, but the plans are in ${plan.currency.toUpperCase()}: one currency for all`,
      );
    return { amount: price.unitAmount, currency: price.currency };
  }
}
