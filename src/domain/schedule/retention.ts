// Retention: the ledger keeps an event's id only while the provider may still send it again
// (retries for 3 days, a manual resend within 30), so older records go, as do old failure records
// and the limits' expired windows, in small batches; with outbound events, those delivered or
// given up go with their attempts after as long as the event records. An event delivered after
// that is processed again; the ordering guard keeps it from overwriting newer state. A credit
// spend's idempotency key goes after 7 days.
import type { CreditsRepository } from '../ports/credits.ts';
import type { EventLedger } from '../ports/event-ledger.ts';
import type { Expiring } from '../ports/expiring.ts';
import type { Metrics } from '../ports/metrics.ts';
import type { Outbox } from '../ports/outbox.ts';

export interface RetentionDays {
  events: number;
  failures: number;
}

/** Rows deleted, by what they were. */
export interface Forgotten {
  events: number;
  failures: number;
  limits: number;
  /** Only with outbound events. */
  outboundEvents?: number;
  /** Credit spends' idempotency keys, kept 7 days. */
  spendKeys?: number;
}

export interface RetentionDeps {
  ledger: EventLedger;
  /** The per-user limits' windows, when they are kept in the database. */
  limits: Expiring | null;
  /** The outbound events, when they are recorded. */
  outbox?: Pick<Outbox, 'forgetSettled'> | null;
  /** Credit spends' keys; omitted where no credits are kept (a test of the rest). */
  credits?: Pick<CreditsRepository, 'forgetSpendKeys'>;
  metrics: Metrics;
  now?: () => number;
}

/** Run hourly: each run deletes what expired since, in small batches. */
export const RETENTION_EVERY_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** A spend's key answers its repeats this long (contract section 14). */
export const SPEND_KEY_DAYS = 7;

export async function forgetExpired(
  deps: RetentionDeps,
  days: RetentionDays,
  signal: AbortSignal,
): Promise<Forgotten> {
  const now = deps.now?.() ?? Date.now();
  const forget = async (table: string, work: () => Promise<number>) => {
    const rows = await work();
    deps.metrics.forgotten(table, rows);
    return rows;
  };
  const events = await forget('webhook_events', () =>
    deps.ledger.forgetEvents(new Date(now - days.events * DAY_MS), signal),
  );
  const failures = await forget('webhook_failures', () =>
    deps.ledger.forgetFailures(new Date(now - days.failures * DAY_MS), signal),
  );
  const limits = deps.limits
    ? await forget('rate_limit_counts', () => deps.limits!.forgetExpired(signal))
    : 0;
  const { outbox, credits } = deps;
  const spendKeys = credits
    ? await forget('credit_spends', () =>
        credits.forgetSpendKeys(new Date(now - SPEND_KEY_DAYS * DAY_MS), signal),
      )
    : undefined;
  const kept = { events, failures, limits, ...(spendKeys !== undefined && { spendKeys }) };
  if (!outbox) return kept;
  const outboundEvents = await forget('outbound_events', () =>
    outbox.forgetSettled(new Date(now - days.events * DAY_MS), signal),
  );
  return { ...kept, outboundEvents };
}
