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
import type { SeatSync } from '../seats/seat-sync.ts';
import { forgetExpired, type RetentionDays } from './retention.ts';
import type { DeliveryWorker } from '../events/delivery-worker.ts';
import {
  announcePassedEnds,
  TIER_CLOCK_EVERY_MS,
  type TierClockDeps,
} from '../events/tier-clock.ts';
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
  /** What the application is told of the changes the jobs make or find (tier-clock.ts). */
  policy: TierClockDeps['policy'];
  outbox: TierClockDeps['outbox'];
  /** This instance's seat engine; null without organisations. */
  seatEngine: SeatSync | null;
  /** This instance's delivery of outbound events; null while no destination is configured. */
  deliveries: DeliveryWorker | null;
}

export interface ScheduledJobs {
  reconcile: ScheduledJob | null;
  retention: ScheduledJob;
  /** The seat engine on this instance; null without organisations. */
  seats: SeatSync | null;
  /** With BILLING_SEATS=active: marks the organisations whose members lapsed out of the window. */
  seatLapses: ScheduledJob | null;
  /** The clock of the tier changes no write makes. */
  tierClock: ScheduledJob;
  deliveries: DeliveryWorker | null;
  start(): void;
  stop(): Promise<void>;
}

type MakeJob = (
  name: string,
  everyMs: number,
  run: ScheduledJobOptions['run'],
  quietWhenIdle?: boolean,
) => ScheduledJob;

/** A job on the shared leases, its last complete run in the metrics. */
const jobMaker =
  ({ leases, holder, log, metrics }: ScheduledJobsDeps): MakeJob =>
  (name, everyMs, run, quietWhenIdle = false) =>
    new ScheduledJob({
      job: name,
      everyMs,
      quietWhenIdle,
      leases,
      holder,
      log,
      run,
      onLastRun: (last) => metrics.lastCompleteRun(name, last.completedAt, last.result),
    });

function reconciliationJob(deps: ScheduledJobsDeps, job: MakeJob): ScheduledJob | null {
  const { reconcileEveryMs, log, metrics } = deps;
  if (reconcileEveryMs === null) return null;
  return job('reconcile', reconcileEveryMs, async (signal) => {
    const { seen, repaired, unchanged, unlinked } = await reconcile(deps, {
      signal,
      onThrottled: (seconds) =>
        log.info({ seconds }, 'reconcile: the payment provider is throttling; waiting'),
    });
    metrics.reconciled(repaired);
    return { seen, repaired, unchanged, unlinked };
  });
}

const retentionJob = (deps: ScheduledJobsDeps, job: MakeJob): ScheduledJob =>
  job('retention', RETENTION_EVERY_MS, async (signal) => ({
    ...(await forgetExpired({ ...deps, credits: deps.store.credits }, deps.retentionDays, signal)),
  }));

/** The seat engine, and with BILLING_SEATS=active the look for lapsed members; none without organisations. */
function seatJobs(
  deps: ScheduledJobsDeps,
  job: MakeJob,
): Pick<ScheduledJobs, 'seats' | 'seatLapses'> {
  const { seats, store, seatEngine } = deps;
  if (seats === null) return { seats: null, seatLapses: null };
  const seatLapses =
    seats.mode !== 'active'
      ? null
      : job('seat-lapses', SEAT_LAPSES_EVERY_MS, async () => ({
          lapsed: await store.seats.markLapsed(seats.activeDays, seats.minimum),
        }));
  return { seats: seatEngine, seatLapses };
}

const tierClockJob = (deps: ScheduledJobsDeps, job: MakeJob): ScheduledJob =>
  job('tier-clock', TIER_CLOCK_EVERY_MS, (signal) => announcePassedEnds(deps, signal), true);

export function scheduledJobs(deps: ScheduledJobsDeps): ScheduledJobs {
  const job = jobMaker(deps);
  const jobs = {
    reconcile: reconciliationJob(deps, job),
    retention: retentionJob(deps, job),
    ...seatJobs(deps, job),
    tierClock: tierClockJob(deps, job),
    deliveries: deps.deliveries,
  };
  const all = Object.values(jobs).filter((j) => j !== null);
  return {
    ...jobs,
    start: () => all.forEach((j) => j.start()),
    stop: async () => void (await Promise.all(all.map((j) => j.stop()))),
  };
}
