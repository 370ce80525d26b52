// Prometheus metrics (prom-client) on a registry of our own per app, so several apps in one
// process (the tests) do not collide: HTTP durations by route and status, webhook outcomes and
// lag, checkout sessions, the scheduled jobs (reconciliation, retention), the seat engine, database
// pool use, and the default process metrics.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolStats } from '../database/sql-client.ts';
import type { Metrics } from '../../domain/ports/metrics.ts';
import { jobMetrics, outboundMetrics, seatMetrics } from './background-work.ts';

export interface PrometheusMetrics extends Metrics {
  registry: Registry;
  observeRequest(route: string, method: string, status: number, seconds: number): void;
}

function requestMetrics(registry: Registry): Pick<PrometheusMetrics, 'observeRequest'> {
  const requests = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route, method and status',
    labelNames: ['route', 'method', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return {
    observeRequest: (route, method, status, seconds) =>
      requests.observe({ route, method, status: String(status) }, seconds),
  };
}

function creditMetrics(registry: Registry): Pick<Metrics, 'credits'> {
  const credits = new Counter({
    name: 'credits_total',
    help: 'Credits granted, purchased, spent, expired, refunded, adjusted and refused, by kind',
    labelNames: ['kind'],
    registers: [registry],
  });
  return { credits: (kind, amount) => credits.inc({ kind }, Math.abs(amount)) };
}

function billingMetrics(registry: Registry): Pick<Metrics, 'webhookEvent' | 'checkoutSession'> {
  const webhookEvents = new Counter({
    name: 'webhook_events_total',
    help: 'Payment events by type and outcome',
    labelNames: ['type', 'outcome'],
    registers: [registry],
  });
  const webhookLag = new Histogram({
    name: 'webhook_lag_seconds',
    help: 'Time from the event being created at the provider to it being processed here',
    buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600, 86_400],
    registers: [registry],
  });
  const checkoutSessions = new Counter({
    name: 'checkout_sessions_total',
    help: 'Checkout sessions created or reused',
    labelNames: ['result'],
    registers: [registry],
  });
  return {
    webhookEvent(type, outcome, lagSeconds) {
      webhookEvents.inc({ type, outcome });
      if (lagSeconds !== null) webhookLag.observe(Math.max(0, lagSeconds));
    },
    checkoutSession: (result) => checkoutSessions.inc({ result }),
  };
}

/** Read when scraped. */
function registerPoolGauge(registry: Registry, poolStats: () => PoolStats): void {
  new Gauge({
    name: 'db_pool_connections',
    help: 'Database connections by state',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const stats = poolStats();
      this.set({ state: 'total' }, stats.size);
      this.set({ state: 'idle' }, stats.idle);
      this.set({ state: 'waiting' }, stats.waiting);
    },
  });
}

export function createPrometheusMetrics(poolStats: () => PoolStats): PrometheusMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metrics = {
    registry,
    ...requestMetrics(registry),
    ...billingMetrics(registry),
    ...jobMetrics(registry),
    ...seatMetrics(registry),
    ...outboundMetrics(registry),
    ...creditMetrics(registry),
  };
  registerPoolGauge(registry, poolStats);
  return metrics;
}
