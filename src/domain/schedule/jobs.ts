// The service's background jobs, each run by one instance at a time however many share the
// database: the reconciliation with the payment provider every BILLING_RECONCILE_INTERVAL (when
// set), retention every hour, and with organisations the look for members who lapsed out of the
// seat window. Beside them, on every instance, the seat engine (seats/seat-sync.ts), which takes
// its organisations one lease each. Started once the service listens, stopped when it closes (a run
// in progress stops at its next step and gives its lease up).
import { reconcile } from '../billing/reconcile.ts';
import type { EventLedger } from '../ports/event-ledger.ts';
import type { Expiring } from '../ports/expiring.ts';
import type { JobLeases } from '../ports/job-leases.ts';
import type { Logger } from '../ports/logger.ts';
import type { Metrics } from '../ports/metrics.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { Store } from '../ports/store.ts';
import type { SeatSettings } from '../seats/desired-seats.ts';
import { SeatSync } from '../seats/seat-sync.ts';
import { forgetExpired, type RetentionDays } from './retention.ts';
import { ScheduledJob, type ScheduledJobOptions } from './scheduled-job.ts';

export const RETENTION_EVERY_MS = 3_600_000;
/** Members lapse in days; a look every ten minutes is soon enough, and costs one statement. */
export const SEAT_LAPSES_EVERY_MS = 600_000;

export interface ScheduledJobsDeps {
  store: Store;
  payments: PaymentsProvider;
  ledger: EventLedger;
  leases: JobLeases;
  limits: Expiring | null;
  metrics: Metrics;
  log: Logger;
  /** This instance's name in the leases. */
  holder: string;
  reconcileEveryMs: number | null;
  retentionDays: RetentionDays;
  /** Null: organisations are off. */
  seats: SeatSettings | null;
}

export interface ScheduledJobs {
  reconcile: ScheduledJob | null;
  retention: ScheduledJob;
  /** The seat engine on this instance; null without organisations. */
  seats: SeatSync | null;
  /** With BILLING_SEATS=active: marks the organisations whose members lapsed out of the window. */
  seatLapses: ScheduledJob | null;
  start(): void;
  stop(): Promise<void>;
}

export function scheduledJobs(deps: ScheduledJobsDeps): ScheduledJobs {
  const { leases, holder, log, metrics } = deps;
  const job = (name: string, everyMs: number, run: ScheduledJobOptions['run']) =>
    new ScheduledJob({
      job: name,
      everyMs,
      leases,
      holder,
      log,
      run,
      onLastRun: (last) => metrics.lastCompleteRun(name, last.completedAt, last.result),
    });
  const reconciliation =
    deps.reconcileEveryMs === null
      ? null
      : job('reconcile', deps.reconcileEveryMs, async (signal) => {
          const { seen, repaired, unchanged, unlinked } = await reconcile(deps, {
            signal,
            onThrottled: (seconds) =>
              log.info({ seconds }, 'reconcile: the payment provider is throttling; waiting'),
          });
          metrics.reconciled(repaired);
          return { seen, repaired, unchanged, unlinked };
        });
  const retention = job('retention', RETENTION_EVERY_MS, async (signal) => ({
    ...(await forgetExpired(deps, deps.retentionDays, signal)),
  }));
  const { seats } = deps;
  const seatSync =
    seats === null
      ? null
      : new SeatSync({
          store: deps.store,
          payments: deps.payments,
          log,
          metrics,
          holder,
          settings: seats,
        });
  const seatLapses =
    seats?.mode !== 'active'
      ? null
      : job('seat-lapses', SEAT_LAPSES_EVERY_MS, async () => ({
          lapsed: await deps.store.seats.markLapsed(seats.activeDays, seats.minimum),
        }));
  const all = [reconciliation, retention, seatSync, seatLapses].filter((j) => j !== null);
  return {
    reconcile: reconciliation,
    retention,
    seats: seatSync,
    seatLapses,
    start: () => all.forEach((j) => j.start()),
    stop: async () => void (await Promise.all(all.map((j) => j.stop()))),
  };
}
