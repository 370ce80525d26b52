// The service's background jobs, each run by one instance at a time however many share the
// database: the reconciliation with the payment provider every BILLING_RECONCILE_INTERVAL (when
// set), and retention every hour. Started once the service listens, stopped when it closes (a
// run in progress stops at its next step and gives its lease up).
import { reconcile } from '../billing/reconcile.ts';
import type { EventLedger } from '../ports/event-ledger.ts';
import type { Expiring } from '../ports/expiring.ts';
import type { JobLeases } from '../ports/job-leases.ts';
import type { Logger } from '../ports/logger.ts';
import type { Metrics } from '../ports/metrics.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { Store } from '../ports/store.ts';
import { forgetExpired, type RetentionDays } from './retention.ts';
import { ScheduledJob, type ScheduledJobOptions } from './scheduled-job.ts';

export const RETENTION_EVERY_MS = 3_600_000;

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
}

export interface ScheduledJobs {
  reconcile: ScheduledJob | null;
  retention: ScheduledJob;
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
  const all = [reconciliation, retention].filter((j) => j !== null);
  return {
    reconcile: reconciliation,
    retention,
    start: () => all.forEach((j) => j.start()),
    stop: async () => void (await Promise.all(all.map((j) => j.stop()))),
  };
}
