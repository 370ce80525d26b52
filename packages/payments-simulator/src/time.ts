// Clock helpers: Stripe speaks unix seconds, and bills a price's interval from the billing cycle
// anchor: a month or a year keeps the anchor's day of the month and time of day.

export { nowSeconds } from './clock.ts';

const DAY = 86_400;

const daysInMonth = (year: number, month: number): number =>
  new Date(Date.UTC(year, month + 1, 0)).getUTCDate();

/**
 * `months` after `start`, on the anchor's day of the month (clamped: an anchor on the 31st bills on
 * Feb 28th, then on Mar 31st again) and at its time of day.
 */
export function addMonths(start: number, months: number, anchor: number = start): number {
  const from = new Date(start * 1000);
  const day = new Date(anchor * 1000);
  const total = from.getUTCMonth() + months;
  const year = from.getUTCFullYear() + Math.floor(total / 12);
  const month = total % 12;
  const date = Math.min(day.getUTCDate(), daysInMonth(year, month));
  return (
    Date.UTC(year, month, date, day.getUTCHours(), day.getUTCMinutes(), day.getUTCSeconds()) / 1000
  );
}

/** How often a price bills (its `recurring`), or a schedule phase's `duration`. */
export interface Recurrence {
  interval: 'day' | 'week' | 'month' | 'year' | (string & Record<never, never>);
  interval_count?: number;
}

/** The end of the period of `recurrence` that starts at `start`, aligned to `anchor`. */
export function periodEnd(start: number, recurrence: Recurrence, anchor: number = start): number {
  const count = recurrence.interval_count ?? 1;
  switch (recurrence.interval) {
    case 'day':
      return start + count * DAY;
    case 'week':
      return start + count * 7 * DAY;
    case 'year':
      return addMonths(start, 12 * count, anchor);
    default:
      return addMonths(start, count, anchor);
  }
}
