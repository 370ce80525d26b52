// One instance at a time: a lease per background job in the shared database, and each job's last
// complete run (which also says when it is due again). Holders are named by the caller.
export interface LastRun {
  completedAt: Date;
  /** What the run reported, e.g. `{ repaired: 3 }`. */
  result: Record<string, number>;
}

export interface JobLeases {
  /**
   * Takes the job's lease for `holder` for `leaseMs`, when nobody holds it (or its holder's lease
   * ran out) and the job is due: its last complete run ended `dueAfterMs` ago or more, or never.
   */
  claim(job: string, holder: string, leaseMs: number, dueAfterMs: number): Promise<boolean>;
  /** Extends the holder's lease; false when it is not the holder's any more. */
  renew(job: string, holder: string, leaseMs: number): Promise<boolean>;
  /** Gives the lease up; with a result, records a complete run now. */
  release(job: string, holder: string, result?: Record<string, number>): Promise<void>;
  lastRun(job: string): Promise<LastRun | null>;
  /** Who holds the job's lease now, and since when; null when nobody does. */
  holder(job: string): Promise<{ holder: string; since: Date } | null>;
}
