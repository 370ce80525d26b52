// The per-user rate limit of the operations that cost provider calls (checkout, portal): counted
// per subject and operation, so it runs after authentication (preHandler). The development forms
// that start the same operations are limited alike, once they have verified the token. The counts live in
// the shared database (sharedLimitStore), so every instance counts alike: a user gets the limit,
// not the limit once per instance, and a form and the API route of one operation share a count.
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';

export function perUserLimit(operation: string, perMinute: number) {
  return {
    rateLimit: {
      max: perMinute,
      timeWindow: 60_000,
      hook: 'preHandler' as const,
      keyGenerator: (request: FastifyRequest) => `${operation}:${request.principal.idpId}`,
    },
  };
}

/** Counts hits per key in fixed windows, wherever the counts are kept. */
export interface HitCounter {
  /** Counts a hit in the key's running window of `windowMs` (starting one if none runs). */
  hit(key: string, windowMs: number): Promise<{ hits: number; msLeft: number }>;
}

/** @fastify/rate-limit's store on a HitCounter: one count per key, whichever route counts it. */
export function sharedLimitStore(counter: HitCounter): FastifyRateLimitStoreCtor {
  return class SharedLimitStore implements FastifyRateLimitStore {
    incr(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number,
    ): void {
      counter.hit(key, timeWindow).then(
        ({ hits, msLeft }) => callback(null, { current: hits, ttl: msLeft }),
        (error: Error) => callback(error),
      );
    }

    /** The plugin asks each limited route for a store of its own: the same counts, keyed by key alone. */
    child(): FastifyRateLimitStore {
      return this;
    }
  };
}
