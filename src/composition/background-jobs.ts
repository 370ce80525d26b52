// The background jobs, every one built here. On one instance at a time, however many share the
// database (domain/schedule/scheduled-job.ts): the reconciliation with the payment provider every
// BILLING_RECONCILE_INTERVAL (when set), retention every hour, the clock of the tier changes no
// write makes, and with organisations and BILLING_SEATS=active the look for members who lapsed out
// of the seat window. On every instance: the seat engine (with organisations), which takes its
// organisations one lease each, and the outbound events' delivery worker (with a destination).
// Started once the service listens, stopped when it closes (a run in progress stops at its next
// step and gives its lease up).
import type { Config } from '../config.ts';
import { createOutbox } from '../adapters/database/outbox.ts';
import { reconcile } from '../domain/billing/reconcile.ts';
import { FREE_TIER } from '../domain/billing/tier.ts';
import { DeliveryWorker } from '../domain/events/delivery-worker.ts';
import type { EventPolicy } from '../domain/events/subject-changes.ts';
import { announcePassedEnds, TIER_CLOCK_EVERY_MS } from '../domain/events/tier-clock.ts';
import type { Outbox, OutboxCounts } from '../domain/ports/outbox.ts';
import { forgetExpired, RETENTION_EVERY_MS } from '../domain/schedule/retention.ts';
import { ScheduledJob, type ScheduledJobOptions } from '../domain/schedule/scheduled-job.ts';
import { SeatSync } from '../domain/seats/seat-sync.ts';
import type { AppEvents } from './events.ts';
import { instanceName, type ServiceAdapters } from './services.ts';

/** Members lapse in days; a look every ten minutes is soon enough, and costs one statement. */
const SEAT_LAPSES_EVERY_MS = 600_000;

export interface BackgroundJobs {
  reconcile: ScheduledJob | null;
  retention: ScheduledJob;
  /** With BILLING_SEATS=active: marks the organisations whose members lapsed out of the window. */
  seatLapses: ScheduledJob | null;
  tierClock: ScheduledJob;
  /** The seat engine on this instance; null without organisations. */
  seats: SeatSync | null;
  /** This instance's delivery of outbound events; null while no destination is configured. */
  deliveries: DeliveryWorker | null;
  start(): void;
  stop(): Promise<void>;
}

/** What the jobs are built from: the adapters, this instance's name in the leases, the outbox. */
interface JobParts {
  adapters: ServiceAdapters;
  holder: string;
  outbox: Outbox;
  policy: EventPolicy;
}

/** A job on the shared leases, its last complete run in the metrics. */
function scheduledJob(
  { adapters, holder }: JobParts,
  job: string,
  everyMs: number,
  run: ScheduledJobOptions['run'],
  quietWhenIdle = false,
): ScheduledJob {
  const { leases, logger: log, metrics } = adapters;
  const onLastRun: ScheduledJobOptions['onLastRun'] = (last) =>
    metrics.lastCompleteRun(job, last.completedAt, last.result);
  return new ScheduledJob({ job, everyMs, quietWhenIdle, leases, holder, log, run, onLastRun });
}

function reconciliation(config: Config, parts: JobParts): ScheduledJob | null {
  const { store, payments, logger: log, metrics } = parts.adapters;
  if (config.reconcileEveryMs === null) return null;
  const onThrottled = (seconds: number) =>
    log.info({ seconds }, 'reconcile: the payment provider is throttling; waiting');
  return scheduledJob(parts, 'reconcile', config.reconcileEveryMs, async (signal) => {
    const deps = { store, payments, log, policy: parts.policy };
    const { seen, repaired, unchanged, unlinked } = await reconcile(deps, { signal, onThrottled });
    metrics.reconciled(repaired);
    return { seen, repaired, unchanged, unlinked };
  });
}

const retention = (config: Config, parts: JobParts): ScheduledJob => {
  const { ledger, limitCounts: limits, metrics, store } = parts.adapters;
  const deps = { ledger, limits, metrics, outbox: parts.outbox, credits: store.credits };
  return scheduledJob(parts, 'retention', RETENTION_EVERY_MS, async (signal) => ({
    ...(await forgetExpired(deps, config.retentionDays, signal)),
  }));
};

function seatLapses(config: Config, parts: JobParts): ScheduledJob | null {
  const seats = config.organizations?.seats;
  if (seats?.mode !== 'active') return null;
  return scheduledJob(parts, 'seat-lapses', SEAT_LAPSES_EVERY_MS, async () => ({
    lapsed: await parts.adapters.store.seats.markLapsed(seats.activeDays, seats.minimum),
  }));
}

const tierClock = (parts: JobParts): ScheduledJob => {
  const deps = { store: parts.adapters.store, outbox: parts.outbox, policy: parts.policy };
  return scheduledJob(
    parts,
    'tier-clock',
    TIER_CLOCK_EVERY_MS,
    (signal) => announcePassedEnds(deps, signal),
    true,
  );
};

function seatEngine(config: Config, { adapters, holder, policy }: JobParts): SeatSync | null {
  if (config.organizations === null) return null;
  const { store, payments, logger: log, metrics, tracing } = adapters;
  const settings = config.organizations.seats;
  return new SeatSync({ store, payments, log, metrics, holder, policy, settings, tracing });
}

function deliveryWorker(events: AppEvents | null, parts: JobParts): DeliveryWorker | null {
  if (events === null) return null;
  const { logger: log, metrics, tracing } = parts.adapters;
  const onCounts = (counts: OutboxCounts) => metrics.outboundEvents(counts);
  const { outbox, holder } = parts;
  return new DeliveryWorker({ outbox, sender: events.sender, holder, log, onCounts, tracing });
}

export function backgroundJobs(
  config: Config,
  adapters: ServiceAdapters,
  { events, policy }: { events: AppEvents | null; policy: EventPolicy },
): BackgroundJobs {
  const parts = {
    adapters,
    holder: instanceName(),
    outbox: createOutbox(adapters.db, FREE_TIER),
    policy,
  };
  const jobs = {
    reconcile: reconciliation(config, parts),
    retention: retention(config, parts),
    seatLapses: seatLapses(config, parts),
    tierClock: tierClock(parts),
    seats: seatEngine(config, parts),
    deliveries: deliveryWorker(events, parts),
  };
  const all = Object.values(jobs).filter((job) => job !== null);
  return {
    ...jobs,
    start: () => all.forEach((job) => job.start()),
    stop: async () => void (await Promise.all(all.map((job) => job.stop()))),
  };
}
