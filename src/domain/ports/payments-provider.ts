// The payment provider, as the domain needs it. Failures surface as
// DomainError('payments_unavailable').
import type { NewCheckoutSession, PaymentEvent, ProviderCheckoutSession, ProviderSubscription } from '../model.ts';

export interface PaymentsProvider {
  createCustomer(input: { userId: string; email: string }, idempotencyKey: string): Promise<string>;
  createCheckoutSession(input: NewCheckoutSession, idempotencyKey: string): Promise<ProviderCheckoutSession>;
  retrieveCheckoutSession(id: string): Promise<ProviderCheckoutSession>;
  /** null when the provider does not know the subscription. */
  retrieveSubscription(id: string): Promise<ProviderSubscription | null>;
  /** Every subscription of the customer, in any status (ended ones included), newest first. */
  listSubscriptions(customerId: string): Promise<ProviderSubscription[]>;
  /** Events whose delivery to our endpoint has not succeeded yet, oldest first. */
  undeliveredEvents(): Promise<PaymentEvent[]>;
  /** The address of a hosted billing-portal session where the customer manages their subscriptions. */
  createPortalSession(input: { customerId: string; returnUrl: string }): Promise<{ url: string }>;
}
