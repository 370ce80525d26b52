// Clock helpers: Stripe speaks unix seconds, and bills monthly on the anchor's day of the month.

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

const daysInMonth = (year: number, month: number): number =>
  new Date(Date.UTC(year, month + 1, 0)).getUTCDate();

/**
 * The end of the monthly period that starts at `start`, keeping the anchor's day of the month
 * (clamped: an anchor on the 31st bills on Feb 28th, then on Mar 31st again) and time of day.
 */
export function addMonth(start: number, anchor: number = start): number {
  const from = new Date(start * 1000);
  const day = new Date(anchor * 1000);
  const year = from.getUTCFullYear() + (from.getUTCMonth() === 11 ? 1 : 0);
  const month = (from.getUTCMonth() + 1) % 12;
  const date = Math.min(day.getUTCDate(), daysInMonth(year, month));
  return (
    Date.UTC(year, month, date, day.getUTCHours(), day.getUTCMinutes(), day.getUTCSeconds()) / 1000
  );
}
