// BILLING_PRICES, BILLING_CREDIT_PACKS and BILLING_TRIAL_DAYS, small languages of their own, read
// the same way by the schema, the rules and the Config, and what is wrong with what they say.
import { SIMULATOR_CREDIT_PACKS, SIMULATOR_PRICES } from './defaults.ts';

export type Interval = 'month' | 'year';
export type TierPrice = { tier: string; interval: Interval; price: string };
export type PackPrice = { name: string; price: string; credits: number };

const parts = (text: string, separator: string) => text.split(separator).map((part) => part.trim());

/** `pro=price_1` (or `pro@month=`) a tier's monthly price, `pro@year=price_2` its yearly one. */
export const tierPrices = (entries = SIMULATOR_PRICES.split(',')): TierPrice[] =>
  entries.map((entry) => {
    const [key, price] = parts(entry, '=') as [string, string];
    const [tier, interval = 'month'] = key.split('@') as [string, Interval?];
    return { tier, interval, price };
  });

/** The tiers of BILLING_PRICES, each once, in the order they first appear. */
export const tierNames = (entries?: string[]): string[] => [
  ...new Set(tierPrices(entries).map(({ tier }) => tier)),
];

/** Tier -> the price a checkout sells: the one at `interval` where the tier has it, else its other. */
export function checkoutPrices(catalog: TierPrice[], interval: Interval): Map<string, string> {
  const prices = new Map<string, string>();
  for (const { tier, price, interval: its } of catalog)
    if (!prices.has(tier) || its === interval) prices.set(tier, price);
  return prices;
}

/** `small=price_a:500`, in order; unset, the simulator's own when it sells. */
export const packPrices = (entries: string[] | undefined, simulator: boolean): PackPrice[] =>
  (entries ?? (simulator ? SIMULATOR_CREDIT_PACKS.split(',') : [])).map((entry) => {
    const [name, rest] = parts(entry, '=') as [string, string];
    const [price, credits] = parts(rest, ':') as [string, string];
    return { name, price, credits: Number(credits) };
  });

/** `14` (every tier: tier null) or `pro=14,team=7`. */
export const trialEntries = (value: string): { tier: string | null; days: number }[] =>
  value === ''
    ? []
    : value.includes('=')
      ? parts(value, ',').map((entry) => {
          const [tier, days] = parts(entry, '=') as [string, string];
          return { tier, days: Number(days) };
        })
      : [{ tier: null, days: Number(value) }];

const repeated = (names: string[]) => names.find((name, index) => names.indexOf(name) !== index);

export function pricesProblem(entries?: string[]) {
  if (tierNames(entries).includes('free'))
    return 'cannot name a tier "free": it is the unpaid tier';
  const twice = repeated(tierPrices(entries).map(({ tier, interval }) => `${tier}@${interval}`));
  return twice?.endsWith('@month')
    ? `names tier "${twice.split('@')[0]}" twice`
    : twice && `names "${twice}" twice`;
}

export function packsProblem(entries?: string[], priceEntries?: string[]) {
  const packs = packPrices(entries, false);
  const outOfRange = packs.find(({ credits }) => credits < 1 || credits > 10_000_000);
  if (outOfRange)
    return `gives pack "${outOfRange.name}" ${outOfRange.credits} credits: 1 to 10000000`;
  const twice = repeated(packs.map(({ name }) => name));
  if (twice !== undefined) return `names pack "${twice}" twice`;
  const prices = new Set(tierPrices(priceEntries).map(({ price }) => price));
  const recurring = packs.find(({ price }) => prices.has(price));
  return (
    recurring && `names ${recurring.price}, a price of BILLING_PRICES: a pack's price is one-time`
  );
}

export const notATier = (tiers: string[], plan?: string) =>
  plan !== undefined &&
  !tiers.includes(plan) &&
  `must be one of the tiers of BILLING_PRICES (${tiers.join(', ')}), got ${JSON.stringify(plan)}`;

export function trialTiersProblem(value: string | undefined, tiers: string[]) {
  const named = trialEntries(value ?? '').flatMap(({ tier }) => tier ?? []);
  const unknown = named.find((tier) => !tiers.includes(tier));
  if (unknown !== undefined)
    return `names ${JSON.stringify(unknown)}, which is not a tier of BILLING_PRICES (${tiers.join(', ')})`;
  const twice = repeated(named);
  return twice && `names tier ${JSON.stringify(twice)} twice`;
}
