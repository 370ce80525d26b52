// The two variables whose text is a small language of its own, read the same way by the schema,
// the rules and the Config built from them.
import { SIMULATOR_PRICES } from './defaults.ts';

/** BILLING_PRICES's tiers and their price ids, in order; unset: the simulator's own. */
export function tierPrices(
  entries: readonly string[] | undefined,
): [tier: string, price: string][] {
  return (entries ?? SIMULATOR_PRICES.split(',')).map((entry) => {
    const [tier, price] = entry.split('=').map((part) => part.trim());
    return [tier!, price!];
  });
}

export const tierNames = (entries: readonly string[] | undefined): string[] =>
  tierPrices(entries).map(([tier]) => tier);

/** BILLING_TRIAL_DAYS's entries: `14` (every tier: tier null) or `pro=14,team=7`. */
export function trialEntries(value: string): { tier: string | null; days: number }[] {
  if (!value.includes('=')) return [{ tier: null, days: Number(value) }];
  return value.split(',').map((entry) => {
    const [tier, days] = entry.split('=').map((part) => part.trim());
    return { tier: tier!, days: Number(days) };
  });
}
