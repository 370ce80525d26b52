// What Stripe's documentation says a subscription charges, computed here from the prices alone
// (never from the simulator's code), for tests that compare what the pages show with it.
//
// Prorations (https://docs.stripe.com/billing/subscriptions/prorations): a change within the
// period is a credit for the unused time on what was paid ("Unused time on ...") and a charge for
// the remaining time at the new price ("Remaining time on ..."); in flexible billing mode the
// credit is of the amount previously debited (https://docs.stripe.com/billing/subscriptions/
// billing-mode/compare). "Stripe calculates proration down to the second"
// (https://docs.stripe.com/billing/scripts/prorations), each line rounded to the cent.
// Billing periods: a monthly subscription renews on the same day of the next month, or that
// month's last day when it has fewer, from the anchor (https://stripe.com/docs/subscriptions/billing-cycle).

/** The share of the period [start, end) left at `at`, by seconds. */
export const left = (start: number, end: number, at: number): number => (end - at) / (end - start);

/** A proration line in cents: `amount` for the share of the period left, rounded to the cent. */
export const prorate = (amount: number, share: number): number => Math.round(amount * share);

/** `months` calendar months after `seconds`, the day clamped to the month's last (UTC). */
export function addMonths(seconds: number, months: number): number {
  const date = new Date(seconds * 1000);
  const day = date.getUTCDate();
  date.setUTCDate(1);
  date.setUTCMonth(date.getUTCMonth() + months);
  const last = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
  date.setUTCDate(Math.min(day, last));
  return Math.floor(date.getTime() / 1000);
}

/** "$1,234.50" for cents, as US dollars are written. */
export const usd = (cents: number): string =>
  `${cents < 0 ? '-' : ''}$${(Math.abs(cents) / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`;

/** "2026-12-28 11:32 UTC": a time to the minute, as the simulator's pages write it. */
export const minuteOf = (seconds: number): string =>
  `${new Date(seconds * 1000).toISOString().replace('T', ' ').slice(0, 16)} UTC`;

/** Every distinct value `f` takes for the whole seconds from `from` to `to`: a click's time is known to a bracket. */
export function over<T>(from: number, to: number, f: (at: number) => T): T[] {
  const values = new Set<T>();
  for (let at = from; at <= to; at++) values.add(f(at));
  return [...values];
}
