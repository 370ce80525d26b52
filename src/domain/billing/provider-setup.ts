// At start-up, where the provider answers: each price of BILLING_PRICES checked against it (it
// exists, recurs at the interval the variable gives it, all in one currency; a mismatch stops
// start-up naming the variable and the price), then the billing portal configuration the service
// owns made or set back, by one instance at a time (a job lease), and its id handed to every
// portal session. An unreachable provider leaves the prices unchecked until the next start and the
// configuration to the first portal call that reaches it: never the account's default, which may
// let a customer edit the quantity or pick a price outside BILLING_PRICES.
import { DomainError } from '../errors.ts';
import type { JobLeases } from '../ports/job-leases.ts';
import type { Logger } from '../ports/logger.ts';
import type { PaymentsProvider, ProviderPrice } from '../ports/payments-provider.ts';

export const PORTAL_CONFIGURATION_JOB = 'portal-configuration';
const LEASE_MS = 60_000;
const WAIT_STEP_MS = 200;
const WAIT_MS = 60_000;

/** A price of BILLING_PRICES: its tier and the interval the variable gives it. */
export interface ConfiguredPrice {
  tier: string;
  interval: 'month' | 'year';
  price: string;
}

/** A price of BILLING_PRICES (or of `variable`) that the provider contradicts. */
export class PriceMismatchError extends Error {
  constructor(message: string, variable = 'BILLING_PRICES') {
    super(`Invalid configuration: ${variable} ${message}`);
    this.name = 'PriceMismatchError';
  }
}

const keyOf = ({ tier, interval }: ConfiguredPrice): string => `${tier}@${interval}`;

/** The provider's prices for `catalog`, in its order, once each agrees with it. */
export async function checkPrices(
  payments: PaymentsProvider,
  catalog: readonly ConfiguredPrice[],
): Promise<ProviderPrice[]> {
  const found: ProviderPrice[] = [];
  for (const entry of catalog) {
    const price = await payments.retrievePrice(entry.price);
    if (price === null)
      throw new PriceMismatchError(
        `names ${entry.price} (${keyOf(entry)}), which the provider does not have`,
      );
    if (price.interval !== entry.interval)
      throw new PriceMismatchError(
        `names ${entry.price} as ${keyOf(entry)}, but it recurs ${price.interval === null ? 'at another interval' : `every ${price.interval}`}`,
      );
    const first = found[0];
    if (first !== undefined && first.currency !== price.currency)
      throw new PriceMismatchError(
        `names ${entry.price} in ${price.currency.toUpperCase()}, but ${first.id} is in ${first.currency.toUpperCase()}: one currency for all`,
      );
    found.push(price);
  }
  return found;
}

/** Each product with its prices, in the order BILLING_PRICES first names them. */
function productsOf(prices: ProviderPrice[]): { product: string; prices: string[] }[] {
  const byProduct = new Map<string, string[]>();
  for (const { product, id } of prices)
    byProduct.set(product, [...(byProduct.get(product) ?? []), id]);
  return [...byProduct].map(([product, ids]) => ({ product, prices: ids }));
}

export interface SetUp {
  payments: PaymentsProvider;
  leases: JobLeases;
  holder: string;
  log: Pick<Logger, 'info' | 'warn'>;
}

/** Waits up to `waitMs` for the portal configuration's lease, so that two instances never make two. */
async function claimed({ leases, holder }: SetUp, waitMs: number): Promise<boolean> {
  const until = Date.now() + waitMs;
  for (;;) {
    if (await leases.claim(PORTAL_CONFIGURATION_JOB, holder, LEASE_MS, 0)) return true;
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
  }
}

/** The configuration's id once set up; null when another instance held the lease throughout. */
export async function ownPortalConfiguration(
  setUp: SetUp,
  prices: ProviderPrice[],
  waitMs: number,
): Promise<string | null> {
  const { payments, leases, holder, log } = setUp;
  if (!(await claimed(setUp, waitMs))) return null;
  try {
    const own = await payments.ensurePortalConfiguration({ products: productsOf(prices) });
    if (own.outcome === 'made') log.info({ configuration: own.id }, 'portal configuration made');
    if (own.outcome === 'restored')
      log.warn(
        { configuration: own.id, restored: own.restored },
        `portal configuration ${own.id} was changed at the provider (${own.restored.join(', ')}); set back`,
      );
    await leases.release(PORTAL_CONFIGURATION_JOB, holder, { [own.outcome]: 1 });
    return own.id;
  } catch (error) {
    await leases.release(PORTAL_CONFIGURATION_JOB, holder);
    throw error;
  }
}

/**
 * Checks BILLING_PRICES against the provider and brings the service's portal configuration in
 * line; answers its id, or null when the provider could not be reached or another instance held
 * the lease for a minute.
 */
export async function setUpProvider(
  setUp: SetUp,
  catalog: readonly ConfiguredPrice[],
): Promise<string | null> {
  try {
    const id = await ownPortalConfiguration(
      setUp,
      await checkPrices(setUp.payments, catalog),
      WAIT_MS,
    );
    if (id === null)
      setUp.log.warn(
        { job: PORTAL_CONFIGURATION_JOB },
        'portal configuration: another instance held it for a minute; the first portal call sets it up',
      );
    return id;
  } catch (error) {
    const unreachable = ['payments_unavailable', 'payments_throttled'];
    if (!(error instanceof DomainError) || !unreachable.includes(error.code)) throw error;
    setUp.log.warn(
      { err: error },
      `the payment provider did not answer at start-up (${error.message}): BILLING_PRICES not checked against it, the portal configuration left to the first portal call`,
    );
    return null;
  }
}
