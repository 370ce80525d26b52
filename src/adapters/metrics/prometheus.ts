// Prometheus metrics (prom-client) on a registry of our own per app, so several apps in one
// process (the tests) do not collide: HTTP durations by route and status, webhook outcomes and
// lag, checkout sessions, database pool use, and the default process metrics.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolStats } from '../database/sql-client.ts';
import type { Metrics } from '../../domain/ports/metrics.ts';

export interface PrometheusMetrics extends Metrics {
  registry: Registry;
  observeRequest(route: string, method: string, status: number, seconds: number): void;
}

export function createPrometheusMetrics(poolStats: () => PoolStats): PrometheusMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route, method and status',
    labelNames: ['route', 'method', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
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
  return {
    registry,
    observeRequest: (route, method, status, seconds) =>
      requests.observe({ route, method, status: String(status) }, seconds),
    webhookEvent(type, outcome, lagSeconds) {
      webhookEvents.inc({ type, outcome });
      if (lagSeconds !== null) webhookLag.observe(Math.max(0, lagSeconds));
    },
    checkoutSession: (result) => checkoutSessions.inc({ result }),
  };
}
