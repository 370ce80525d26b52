// PaymentsProvider on the Stripe SDK. Every creating call carries the caller's idempotency key;
// every failure becomes DomainError('payments_unavailable') so the key and the provider's words
// never reach a client. A rejected key is also logged, since only an operator can fix it.
import Stripe from 'stripe';
import { DomainError } from '../../domain/errors.ts';
import type { PaymentsProvider } from '../../domain/ports/payments-provider.ts';
import type { ProviderCheckoutSession } from '../../domain/model.ts';
import { toPaymentEvent, toProviderSubscription } from './stripe-mapping.ts';

export interface PaymentsLogger {
  error(fields: object, message: string): void;
}

function toSession(session: Stripe.Checkout.Session): ProviderCheckoutSession {
  return { id: session.id, url: session.url ?? '', status: (session.status ?? 'open') as ProviderCheckoutSession['status'], expiresAt: new Date(session.expires_at * 1000) };
}

export function createStripePayments(stripe: Stripe, log: PaymentsLogger): PaymentsProvider {
  async function call<T>(operation: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const failure = error as Stripe.errors.StripeError;
      if (failure.type === 'StripeAuthenticationError' || failure.type === 'StripePermissionError') {
        log.error({ operation, type: failure.type }, 'payment provider rejected our API key');
      } else {
        log.error({ operation, type: failure.type, status: failure.statusCode, code: failure.code }, 'payment provider call failed');
      }
      throw new DomainError('payments_unavailable', 'Payment provider unavailable');
    }
  }
  return {
    createCustomer: ({ userId, email }, idempotencyKey) =>
      call('customers.create', async () => (await stripe.customers.create({ email, metadata: { user_id: userId } }, { idempotencyKey })).id),
    createCheckoutSession: (input, idempotencyKey) =>
      call('checkout.sessions.create', async () =>
        toSession(
          await stripe.checkout.sessions.create(
            {
              mode: 'subscription',
              customer: input.customerId,
              client_reference_id: input.userId,
              line_items: [{ price: input.priceId, quantity: 1 }],
              success_url: input.successUrl,
              cancel_url: input.cancelUrl,
              metadata: { user_id: input.userId },
              subscription_data: { metadata: { user_id: input.userId } },
            },
            { idempotencyKey },
          ),
        ),
      ),
    retrieveCheckoutSession: (id) => call('checkout.sessions.retrieve', async () => toSession(await stripe.checkout.sessions.retrieve(id))),
    retrieveSubscription: (id) =>
      call('subscriptions.retrieve', async () => {
        try {
          return toProviderSubscription(await stripe.subscriptions.retrieve(id));
        } catch (error) {
          if ((error as Stripe.errors.StripeError).statusCode === 404) return null;
          throw error;
        }
      }),
    listSubscriptions: (customerId) =>
      call('subscriptions.list', async () => {
        const subscriptions = await stripe.subscriptions.list({ customer: customerId, status: 'all', limit: 100 }).autoPagingToArray({ limit: 10_000 });
        return subscriptions.map(toProviderSubscription);
      }),
    undeliveredEvents: () =>
      call('events.list', async () => {
        const events = await stripe.events.list({ delivery_success: false, limit: 100 }).autoPagingToArray({ limit: 10_000 });
        return events.reverse().map(toPaymentEvent);
      }),
    createPortalSession: ({ customerId, returnUrl }) =>
      call('billingPortal.sessions.create', async () => ({ url: (await stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl })).url })),
  };
}
