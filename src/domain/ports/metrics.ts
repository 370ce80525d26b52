// What the domain reports for operators to watch; the adapter decides how (Prometheus).
import type { CreditEntryKind } from './credits.ts';
import type { OutboxCounts } from './outbox.ts';

export interface Metrics {
  webhookEvent(
    type: string,
    outcome: 'processed' | 'duplicate' | 'ignored' | 'failed',
    lagSeconds: number | null,
  ): void;
  checkoutSession(result: 'created' | 'reused'): void;
  /** The last complete run of a scheduled job, on any instance (from the shared record). */
  lastCompleteRun(job: string, completedAt: Date, result: Record<string, number>): void;
  /** Subscriptions that a reconciliation run by this process repaired. */
  reconciled(repaired: number): void;
  /** Rows that retention deleted from a table. */
  forgotten(table: string, rows: number): void;
  /** A quantity pushed to the provider by the seat engine, or a push that failed. */
  seatUpdate(result: 'sent' | 'failed'): void;
  /** Organisations whose provider quantity is not (yet) their desired one, as this instance last counted. */
  seatsOutOfSync(organizations: number): void;
  /** The outbox's events by state and the oldest pending one's age, as this instance last counted. */
  outboundEvents(counts: OutboxCounts): void;
  /** Credits changed, by the kind of entry (`refused`: a spend refused for want of them). */
  credits(kind: CreditEntryKind | 'refused', amount: number): void;
}
