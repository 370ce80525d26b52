// The hosted checkout sessions the service opened, one open per subject.
import type { SubjectRef } from '../model/callers.ts';
import type { CheckoutSessionRecord } from '../model/checkout.ts';

export interface CheckoutSessionsRepository {
  /** The subject's session still marked open, if its time has not run out. */
  findOpen(owner: SubjectRef, now: Date): Promise<CheckoutSessionRecord | null>;
  /**
   * In a transaction: takes the subject's lock until it ends, marks its open session `expired` if
   * its time ran out, and returns the one still open: who records a session next decides alone.
   */
  lockOpen(owner: SubjectRef, now: Date): Promise<CheckoutSessionRecord | null>;
  /** How many of the subject's sessions are closed: the count moves only when one closes. */
  closedCount(owner: SubjectRef, now: Date): Promise<number>;
  /** The subject's sessions replaced by a newer one and not yet known to be expired at the provider. */
  replacedOf(owner: SubjectRef): Promise<string[]>;
  /** The sessions of the same subject as this one that may still be open at the provider. */
  othersOf(sessionId: string): Promise<string[]>;
  /** Records a session (again: no change); `open` fails while another of the subject's is open. */
  insert(session: CheckoutSessionRecord, status?: 'open' | 'replaced'): Promise<void>;
  markStatus(id: string, status: CheckoutSessionStatus): Promise<void>;
  /** The id of the user who opened the session, if it is one of ours. */
  userOf(sessionId: string): Promise<string | null>;
}

/** The provider's statuses, and `replaced`: superseded by a newer session, to expire at the provider. */
export type CheckoutSessionStatus = 'open' | 'complete' | 'expired' | 'replaced';
