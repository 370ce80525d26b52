// How many provider calls the simulator served, by method and route (`GET /v1/subscriptions/:id`),
// so a benchmark or a test can say how often the service asked the provider; read and reset
// through GET and DELETE /_sim/calls. Counted when the answer is sent, whatever its status; the
// controls, pages and unknown routes are not provider calls and are not counted.
import type { FastifyInstance } from 'fastify';

export class CallCounter {
  private counts = new Map<string, number>();

  /** Counts every request answered by a route of this Fastify scope (the API under /v1). */
  register(api: FastifyInstance): void {
    api.addHook('onResponse', async (request) => {
      const route = request.routeOptions.url;
      if (route === undefined) return;
      const key = `${request.method} ${route}`;
      this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    });
  }

  snapshot(): Record<string, number> {
    return Object.fromEntries([...this.counts].sort(([a], [b]) => a.localeCompare(b)));
  }

  reset(): void {
    this.counts.clear();
  }
}
