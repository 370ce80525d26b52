// Every failure of a Stripe call becomes the domain's: DomainError('payments_throttled') for a 429,
// with the wait the provider asks for, else DomainError('payments_unavailable'), so the key and the
// provider's words never reach a client. A rejected key is also logged, since only an operator can
// fix it.
import type Stripe from 'stripe';
import { DomainError, UnmappableAnswer } from '../../domain/errors.ts';
import type { Logger } from '../../domain/ports/logger.ts';

/** Longer waits are not what a throttled caller should sit through; it comes back sooner. */
const MAX_RETRY_AFTER_SECONDS = 600;

/** Runs one provider operation (named for the log), its failure translated. */
export type ProviderCall = <T>(operation: string, work: () => Promise<T>) => Promise<T>;

/** Seconds the provider asks us to wait (`Retry-After`: seconds or an HTTP date), within reason. */
function retryAfterSeconds(headers: Record<string, string> | undefined): number | undefined {
  const value = headers?.['retry-after'];
  if (value === undefined) return undefined;
  const seconds = /^\d+$/.test(value)
    ? Number(value)
    : Math.ceil((Date.parse(value) - Date.now()) / 1000);
  return Number.isFinite(seconds)
    ? Math.min(Math.max(seconds, 1), MAX_RETRY_AFTER_SECONDS)
    : undefined;
}

function logFailure(
  log: Pick<Logger, 'error'>,
  operation: string,
  failure: Stripe.errors.StripeError,
) {
  if (failure.type === 'StripeAuthenticationError' || failure.type === 'StripePermissionError')
    log.error({ operation, type: failure.type }, 'payment provider rejected our API key');
  else
    log.error(
      { operation, type: failure.type, status: failure.statusCode, code: failure.code },
      'payment provider call failed',
    );
}

export function translatingFailures(log: Pick<Logger, 'error'>): ProviderCall {
  return async (operation, work) => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof UnmappableAnswer) throw error;
      const failure = error as Stripe.errors.StripeError;
      if (failure.statusCode === 429) {
        // Throttling is a normal answer: whoever asked answers 503 with Retry-After and logs it once.
        throw new DomainError('payments_throttled', 'Payment provider is throttling requests', {
          operation,
          retryAfterSeconds: retryAfterSeconds(failure.headers),
        });
      }
      logFailure(log, operation, failure);
      throw new DomainError('payments_unavailable', 'Payment provider unavailable');
    }
  };
}
