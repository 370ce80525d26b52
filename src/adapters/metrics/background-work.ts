// The metrics of the work done outside requests: the scheduled jobs (reconciliation, retention),
// the seat engine and the outbound events' deliveries.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Metrics } from '../../domain/ports/metrics.ts';

export function jobMetrics(
  registry: Registry,
): Pick<Metrics, 'lastCompleteRun' | 'reconciled' | 'forgotten'> {
  const lastCompleted = new Gauge({
    name: 'scheduled_job_last_completed_timestamp_seconds',
    help: 'When the last complete run of a scheduled job (reconcile, retention) ended, on any instance',
    labelNames: ['job'],
    registers: [registry],
  });
  const lastRepairs = new Gauge({
    name: 'reconcile_last_run_repairs',
    help: 'Subscriptions the last complete reconciliation repaired, on any instance',
    registers: [registry],
  });
  const repairs = new Counter({
    name: 'reconcile_repairs_total',
    help: 'Subscriptions repaired by reconciliations this process ran',
    registers: [registry],
  });
  const forgotten = new Counter({
    name: 'retention_deleted_rows_total',
    help: 'Rows deleted by retention runs of this process, by table',
    labelNames: ['table'],
    registers: [registry],
  });
  return {
    lastCompleteRun(job, completedAt, result) {
      lastCompleted.set({ job }, completedAt.getTime() / 1000);
      if (job === 'reconcile' && result.repaired !== undefined) lastRepairs.set(result.repaired);
    },
    reconciled: (count) => repairs.inc(count),
    forgotten: (table, rows) => forgotten.inc({ table }, rows),
  };
}

export function seatMetrics(registry: Registry): Pick<Metrics, 'seatUpdate' | 'seatsOutOfSync'> {
  const updates = new Counter({
    name: 'seat_updates_total',
    help: 'Subscription quantities the seat engine of this process pushed to the provider, or failed to',
    labelNames: ['result'],
    registers: [registry],
  });
  const outOfSync = new Gauge({
    name: 'seat_organizations_out_of_sync',
    help: 'Organisations with a live subscription whose quantity is not yet their desired one',
    registers: [registry],
  });
  return {
    seatUpdate: (result) => updates.inc({ result }),
    seatsOutOfSync: (organizations) => outOfSync.set(organizations),
  };
}

export function outboundMetrics(registry: Registry): Pick<Metrics, 'outboundEvents'> {
  const events = new Gauge({
    name: 'outbound_events',
    help: 'Outbound events by state (pending, delivered, failed), as this instance last counted',
    labelNames: ['state'],
    registers: [registry],
  });
  const oldest = new Gauge({
    name: 'outbound_events_oldest_pending_seconds',
    help: 'How long the oldest pending outbound event has waited, as this instance last counted',
    registers: [registry],
  });
  return {
    outboundEvents(counts) {
      for (const state of ['pending', 'delivered', 'failed'] as const)
        events.set({ state }, counts[state]);
      oldest.set(counts.oldestPendingSeconds);
    },
  };
}
