// The seat engine's records: the seat counts an application reports, and which organisations need
// their billed quantity pushed to the provider.

/** A seat count the organisation's application reported, and as of when. */
export interface SeatReport {
  count: number;
  asOf: Date;
}

/** An organisation whose seats a worker took to look at, under its lease. */
export interface SeatWork {
  organizationId: string;
  /** The changes counted when it was taken: a change after it leaves the organisation pending. */
  changes: number;
  /** Failed attempts in a row before this one. */
  failures: number;
}

/** What the provider should bill, and what it was last asked to. */
export interface SeatTarget {
  /** Null: never decided. */
  desired: number | null;
  revision: number;
  /** The revision whose push the provider accepted last; null: none. */
  pushedRevision: number | null;
}

export interface SeatClaim {
  holder: string;
  leaseMs: number;
  limit: number;
  /** Taken once no change came for this long (a burst settles first)... */
  quietMs: number;
  /** ...or once a change has waited this long, whatever keeps coming... */
  maxWaitMs: number;
  /** ...or, once pushed while changes kept coming (a stream), this long. */
  streamWaitMs: number;
}

/** The seat engine's state per organisation (see seats/). */
export interface SeatsRepository {
  reported(organizationId: string): Promise<SeatReport | null>;
  /**
   * Stores the report unless one as of a later time is stored (then false, nothing changed), and
   * marks the organisation's seats as changed; one statement.
   */
  report(organizationId: string, report: SeatReport): Promise<boolean>;
  /**
   * Takes the lease of up to `limit` organisations with something to look at, whose lease is free
   * and whose back-off has passed: one statement, so two instances never take the same one.
   */
  claim(options: SeatClaim): Promise<SeatWork[]>;
  target(organizationId: string): Promise<SeatTarget>;
  /**
   * Under the holder's lease: stores `desired`, bumping the revision when it changed or when
   * `again` (the same quantity must be pushed anew); the revision after, null when the lease is lost.
   */
  setDesired(
    organizationId: string,
    holder: string,
    desired: number,
    again: boolean,
  ): Promise<number | null>;
  /** Under the holder's lease: the provider accepted the push of `revision`. */
  pushed(organizationId: string, holder: string, revision: number): Promise<void>;
  /**
   * Gives the lease up. Done: nothing is left to look at unless a change came after `changes`
   * (then a push, `pushed`, counts as one of a stream). Failed: looked at again after
   * `retryAfterMs`, one more failure counted.
   */
  release(
    organizationId: string,
    holder: string,
    outcome:
      { done: true; changes: number; pushed: boolean } | { done: false; retryAfterMs: number },
  ): Promise<void>;
  /** Marks the organisation's seats as changed: it is looked at again. */
  mark(organizationId: string): Promise<void>;
  /** Marks as changed each organisation whose active members (over `activeDays`, at least `minimum`) are no longer its desired quantity. */
  markLapsed(activeDays: number, minimum: number): Promise<number>;
  /** Organisations with a live subscription whose quantity is not (or not known to be) the desired one. */
  outOfSync(): Promise<number>;
}
