// What the domain reports for operators to watch; the adapter decides how (Prometheus).
export interface Metrics {
  webhookEvent(
    type: string,
    outcome: 'processed' | 'duplicate' | 'ignored' | 'failed',
    lagSeconds: number | null,
  ): void;
  checkoutSession(result: 'created' | 'reused'): void;
}
