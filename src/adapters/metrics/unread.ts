// The metrics where /metrics is served nowhere (production with neither METRICS_TOKEN nor
// METRICS_PORT): nothing could read them, so nothing is counted, and prom-client, its default
// collectors and their timers are never loaded.
import type { Metrics } from '../../domain/ports/metrics.ts';

const nothing = () => {};

export const UNREAD_METRICS: Metrics = {
  webhookEvent: nothing,
  checkoutSession: nothing,
  lastCompleteRun: nothing,
  reconciled: nothing,
  forgotten: nothing,
  seatUpdate: nothing,
  seatsOutOfSync: nothing,
  outboundEvents: nothing,
  credits: nothing,
};
