// PaymentsProvider on the Stripe SDK. Every creating call carries the caller's idempotency key;
// every failure becomes DomainError('payments_unavailable'), or 'payments_throttled' for a 429, so
// the key and the provider's words never reach a client. A rejected key is also logged, since only
// an operator can fix it.
import Stripe from 'stripe';
import { DomainError, UnmappableAnswer } from '../../domain/errors.ts';
import type { PaymentsProvider, SubscriptionsPage } from '../../domain/ports/payments-provider.ts';
import type { NewCheckoutSession, ProviderCheckoutSession } from '../../domain/model.ts';
import { toCompletedNotice, toPaymentEvent, toProviderSubscription } from './stripe-mapping.ts';

/** Longer waits are not what a throttled caller should sit through; it comes back sooner. */
const MAX_RETRY_AFTER_SECONDS = 600;

export interface PaymentsLogger {
  error(fields: object, message: string): void;
}

function toSession(session: Stripe.Checkout.Session): ProviderCheckoutSession {
  return {
    id: session.id,
    url: session.url ?? '',
    status: (session.status ?? 'open') as ProviderCheckoutSession['status'],
    expiresAt: new Date(session.expires_at * 1000),
  };
}

/**
 * A subscription checkout for the input's price, with the offers the server chose (CONTRACT §9):
 * a trial (without a card when none is required, and then cancelled if it ends unpaid),
 * promotion codes, automatic tax (the customer exists before the session, so Checkout may write
 * the address and name it collects onto it, which Stripe requires for tax and tax ids).
 */
export function checkoutSessionParams(
  input: NewCheckoutSession,
): Stripe.Checkout.SessionCreateParams {
  const { offer } = input;
  const trial = offer.trialDays !== null;
  const cardless = trial && !offer.trialRequiresCard;
  return {
    mode: 'subscription',
    customer: input.customerId,
    client_reference_id: input.userId,
    line_items: [{ price: input.priceId, quantity: 1 }],
    success_url: input.successUrl,
    cancel_url: input.cancelUrl,
    metadata: { user_id: input.userId },
    subscription_data: {
      metadata: { user_id: input.userId },
      ...(trial && { trial_period_days: offer.trialDays! }),
      ...(cardless && { trial_settings: { end_behavior: { missing_payment_method: 'cancel' } } }),
    },
    ...(cardless && { payment_method_collection: 'if_required' }),
    ...(offer.allowPromotionCodes && { allow_promotion_codes: true }),
    ...(offer.automaticTax && {
      automatic_tax: { enabled: true },
      customer_update: { address: 'auto', name: 'auto' },
      tax_id_collection: { enabled: true },
    }),
  };
}

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

/** The provider's own time of a response (its `Date` header), unix seconds; our clock if it sent none. */
function providerTime(response: { lastResponse?: { headers?: Record<string, string> } }): number {
  const stamped = Date.parse(response.lastResponse?.headers?.date ?? '');
  return Math.floor((Number.isFinite(stamped) ? stamped : Date.now()) / 1000);
}

/** A translation of what the provider answered; failing, an UnmappableAnswer with the reason. */
function translated<T>(translate: () => T): T {
  try {
    return translate();
  } catch (error) {
    throw new UnmappableAnswer(error instanceof Error ? error.message : String(error));
  }
}

/** A page's subscriptions translated one by one: one the service cannot read is set aside. */
function translatedEach(
  listed: Stripe.Subscription[],
): Pick<SubscriptionsPage, 'subscriptions' | 'untranslatable'> {
  const page: Pick<SubscriptionsPage, 'subscriptions' | 'untranslatable'> = {
    subscriptions: [],
    untranslatable: [],
  };
  for (const subscription of listed) {
    try {
      page.subscriptions.push(toProviderSubscription(subscription));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      page.untranslatable.push({ id: String(subscription.id), reason });
    }
  }
  return page;
}

export function createStripePayments(stripe: Stripe, log: PaymentsLogger): PaymentsProvider {
  async function call<T>(operation: string, work: () => Promise<T>): Promise<T> {
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
      if (
        failure.type === 'StripeAuthenticationError' ||
        failure.type === 'StripePermissionError'
      ) {
        log.error({ operation, type: failure.type }, 'payment provider rejected our API key');
      } else {
        log.error(
          { operation, type: failure.type, status: failure.statusCode, code: failure.code },
          'payment provider call failed',
        );
      }
      throw new DomainError('payments_unavailable', 'Payment provider unavailable');
    }
  }
  return {
    createCustomer: ({ userId, email }, idempotencyKey) =>
      call(
        'customers.create',
        async () =>
          (
            await stripe.customers.create(
              { email, metadata: { user_id: userId } },
              { idempotencyKey },
            )
          ).id,
      ),
    createCheckoutSession: (input, idempotencyKey) =>
      call('checkout.sessions.create', async () =>
        toSession(
          await stripe.checkout.sessions.create(checkoutSessionParams(input), { idempotencyKey }),
        ),
      ),
    retrieveCheckoutSession: (id) =>
      call('checkout.sessions.retrieve', async () =>
        toSession(await stripe.checkout.sessions.retrieve(id)),
      ),
    retrieveSubscription: (id) =>
      call('subscriptions.retrieve', async () => {
        try {
          const subscription = await stripe.subscriptions.retrieve(id);
          return {
            value: translated(() => toProviderSubscription(subscription)),
            readAt: providerTime(subscription),
          };
        } catch (error) {
          const failure = error as Stripe.errors.StripeError;
          if (failure.statusCode === 404)
            return {
              value: null,
              readAt: providerTime({ lastResponse: { headers: failure.headers } }),
            };
          throw error;
        }
      }),
    listSubscriptions: (customerId) =>
      call('subscriptions.list', async () => {
        // The first page's time: every page after it is at least as current.
        const firstPage = await stripe.subscriptions.list({
          customer: customerId,
          status: 'all',
          limit: 100,
        });
        const rest = firstPage.has_more
          ? await stripe.subscriptions
              .list({
                customer: customerId,
                status: 'all',
                limit: 100,
                starting_after: firstPage.data.at(-1)!.id,
              })
              .autoPagingToArray({ limit: 10_000 })
          : [];
        return {
          value: [...firstPage.data, ...rest].map(toProviderSubscription),
          readAt: providerTime(firstPage),
        };
      }),
    listSubscriptionsPage: (after) =>
      call('subscriptions.list', async () => {
        const page = await stripe.subscriptions.list({
          status: 'all',
          limit: 100,
          ...(after !== null && { starting_after: after }),
        });
        return {
          value: {
            ...translatedEach(page.data),
            next: page.has_more && page.data.length > 0 ? page.data.at(-1)!.id : null,
          },
          readAt: providerTime(page),
        };
      }),
    customerExists: (customerId) =>
      call('customers.retrieve', async () => {
        try {
          const customer = await stripe.customers.retrieve(customerId);
          return customer.deleted !== true;
        } catch (error) {
          if ((error as Stripe.errors.StripeError).statusCode === 404) return false;
          throw error;
        }
      }),
    completeNotice: (notice) =>
      call('events.related_object', async () => {
        try {
          const object =
            notice.related.type === 'invoice'
              ? await stripe.invoices.retrieve(notice.related.id)
              : await stripe.checkout.sessions.retrieve(notice.related.id);
          return toCompletedNotice(notice, object);
        } catch (error) {
          if ((error as Stripe.errors.StripeError).statusCode !== 404) throw error;
          return {
            ...notice,
            kind: 'unmappable' as const,
            reason: `the provider does not know ${notice.related.type} ${notice.related.id}`,
          };
        }
      }),
    undeliveredEvents: () =>
      call('events.list', async () => {
        const events = await stripe.events
          .list({ delivery_success: false, limit: 100 })
          .autoPagingToArray({ limit: 10_000 });
        return events.reverse().map(toPaymentEvent);
      }),
    createPortalSession: ({ customerId, returnUrl }) =>
      call('billingPortal.sessions.create', async () => ({
        url: (
          await stripe.billingPortal.sessions.create({
            customer: customerId,
            return_url: returnUrl,
          })
        ).url,
      })),
  };
}
