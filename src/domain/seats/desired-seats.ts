// The quantity an organisation's subscription should have: its active members, the count its
// application last reported, or one, and never below the configured minimum.
export type SeatMode = 'active' | 'reported' | 'flat';

export interface SeatSettings {
  mode: SeatMode;
  /** Days a member counts as active after their last request naming the organisation. */
  activeDays: number;
  minimum: number;
}

export interface SeatCounts {
  /** Members seen within the window. */
  active: number;
  /** The last count reported; null: none yet. */
  reported: number | null;
}

/** With `reported` and no report yet, the minimum: nothing is billed on a guess. */
export function desiredSeats(settings: SeatSettings, counts: SeatCounts): number {
  const wanted =
    settings.mode === 'active'
      ? counts.active
      : settings.mode === 'reported'
        ? (counts.reported ?? 0)
        : 1;
  return Math.max(settings.minimum, wanted);
}
