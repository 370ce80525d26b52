// The two variables whose text is a small language of its own, read the same way by the schema,
// the rules and the Config built from them.
import { SIMULATOR_CREDIT_PACKS, SIMULATOR_PRICES } from './defaults.ts';

export const INTERVALS = ['month', 'year'] as const;
export type Interval = (typeof INTERVALS)[number];

/** A price of BILLING_PRICES: its tier and the interval it recurs at. */
export interface TierPrice {
  tier: string;
  interval: Interval;
  price: string;
}

/**
 * BILLING_PRICES's entries, in order: `pro=price_1` (or `pro@month=price_1`) a tier's monthly
 * price, `pro@year=price_2` its yearly one; unset: the simulator's own.
 */
export function tierPrices(entries: readonly string[] | undefined): TierPrice[] {
  return (entries ?? SIMULATOR_PRICES.split(',')).map((entry) => {
    const [key, price] = entry.split('=').map((part) => part.trim());
    const [tier, interval = 'month'] = key!.split('@');
    return { tier: tier!, interval: interval as Interval, price: price! };
  });
}

/** The tiers of BILLING_PRICES, each once, in the order they first appear. */
export const tierNames = (entries: readonly string[] | undefined): string[] => [
  ...new Set(tierPrices(entries).map(({ tier }) => tier)),
];

/** Tier -> the price a checkout sells: the one at `interval` where the tier has it, else its other. */
export function checkoutPrices(
  catalog: readonly TierPrice[],
  interval: Interval,
): Map<string, string> {
  const prices = new Map<string, string>();
  for (const { tier, price, interval: its } of catalog)
    if (!prices.has(tier) || its === interval) prices.set(tier, price);
  return prices;
}

/** A pack of BILLING_CREDIT_PACKS: its name, its one-time price, the credits it adds. */
export interface PackPrice {
  name: string;
  price: string;
  credits: number;
}

/** BILLING_CREDIT_PACKS's entries, `small=price_a:500`, in order; unset, the simulator's own when it sells. */
export function packPrices(
  entries: readonly string[] | undefined,
  simulator: boolean,
): PackPrice[] {
  const given = entries ?? (simulator ? SIMULATOR_CREDIT_PACKS.split(',') : []);
  return given.map((entry) => {
    const [name, rest] = entry.split('=').map((part) => part.trim());
    const [price, credits] = rest!.split(':').map((part) => part.trim());
    return { name: name!, price: price!, credits: Number(credits) };
  });
}

/** BILLING_TRIAL_DAYS's entries: `14` (every tier: tier null) or `pro=14,team=7`. */
export function trialEntries(value: string): { tier: string | null; days: number }[] {
  if (!value.includes('=')) return [{ tier: null, days: Number(value) }];
  return value.split(',').map((entry) => {
    const [tier, days] = entry.split('=').map((part) => part.trim());
    return { tier: tier!, days: Number(days) };
  });
}
