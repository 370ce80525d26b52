// Outbound events as the domain needs them stored: what each subject was last told, the events
// written beside the change they report, and the deliveries a worker makes of them.
import type { PendingChange } from '../model/subscriptions.ts';
import type { SubjectRef } from '../model/callers.ts';
import type { EventDraft } from '../events/app-events.ts';

/** What the application was last told of a subject; a null tier: not known (billed before events). */
export interface Announced {
  tier: string | null;
  seats: number | null;
  paymentFailedAt: Date | null;
  /** The change its subscription's schedule makes at the period's end; null when none. */
  pendingChange: PendingChange | null;
}

/** The outbox inside a transaction: what events/subject-changes.ts reads and writes. */
export interface OutboxRepository {
  /**
   * The subject's announced state, locked until the transaction ends, so that two transactions
   * changing one subject take turns; its record is made on first sight, with a null tier.
   */
  lockOrCreateAnnounced(subject: SubjectRef): Promise<Announced>;
  /** Stores what the subject is told now, and the events that tell it, in the order given. */
  announce(subject: SubjectRef, state: Announced, events: EventDraft[], now: Date): Promise<void>;
  /** Writes events that change nothing the subject was told (a notice: a trial ending soon), under its lock. */
  append(subject: SubjectRef, events: EventDraft[], now: Date): Promise<void>;
}

/** An event a worker holds the lease of, to attempt once. */
export interface ClaimedEvent {
  id: string;
  type: string;
  body: string;
  /** This attempt's number, from 1. */
  attempt: number;
  /** This attempt's number since its retries started (the creation or the last resend), from 1. */
  retry: number;
  /** When its retries started: the event's creation, or the last resend. */
  retryFrom: Date;
  /** The trace of the change it reports, as a W3C traceparent; null when none was recorded. */
  traceParent: string | null;
}

/** What one attempt met: the answer's status (null: none), its time, the start of its body. */
export interface AttemptRecord {
  attemptedAt: Date;
  status: number | null;
  durationMs: number;
  /** The first 1 KB of the answer's body, or why no answer came. */
  answer: string;
}

/** After an attempt: delivered, given up, or tried again at `at`. */
export type Outcome = { state: 'delivered' } | { state: 'failed' } | { state: 'pending'; at: Date };

export interface EventSummary {
  id: string;
  type: string;
  subject: SubjectRef;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  createdAt: Date;
  nextAttemptAt: Date | null;
  /** The last attempt's status and answer; null before any. */
  last: { status: number | null; answer: string } | null;
}

export interface OutboxCounts {
  pending: number;
  delivered: number;
  failed: number;
  /** Seconds the oldest pending event has waited; 0 when none is pending. */
  oldestPendingSeconds: number;
}

/** The outbox outside transactions: the delivery worker's and the operator's. */
export interface Outbox {
  /**
   * Takes the lease of up to `limit` due events, each the oldest pending one of its subject and
   * held by nobody: one statement, so two workers on any instances never take the same one.
   */
  claim(holder: string, now: Date, leaseMs: number, limit: number): Promise<ClaimedEvent[]>;
  /** Records an attempt and what follows it, under the holder's lease (a lost lease records the attempt only). */
  settle(
    eventId: string,
    holder: string,
    attempt: number,
    record: AttemptRecord,
    outcome: Outcome,
  ): Promise<void>;
  list(options: { failed: boolean; limit: number }): Promise<EventSummary[]>;
  /**
   * Sends an event again from now: a delivered or failed one with retries started afresh, apart
   * from the subject's queue; a pending one at once, in its place. False when there is no such event.
   */
  resend(eventId: string, now: Date): Promise<boolean>;
  counts(now: Date): Promise<OutboxCounts>;
  /** Subjects told a paid tier whose live subscription's end or grace period has passed. */
  passedEnds(now: Date, graceDays: number, limit: number): Promise<SubjectRef[]>;
  /** Subjects never told their tier, though billed or left unknown, in key order after `after`. */
  untold(after: SubjectRef | null, limit: number): Promise<SubjectRef[]>;
  /** Deletes events delivered or given up before `before`, with their attempts; resolves to how many. */
  forgetSettled(before: Date, signal: AbortSignal): Promise<number>;
}
