// Translation from Stripe's object shapes to the domain's, in one place: the handlers and the
// checkout service never see the provider's JSON.
import type Stripe from 'stripe';
import type { SubscriptionStatus } from '../../domain/billing/tier.ts';
import type { PaymentEvent, ProviderSubscription } from '../../domain/ports.ts';

export function toProviderSubscription(subscription: Stripe.Subscription): ProviderSubscription {
  const item = subscription.items.data[0];
  const customer = subscription.customer;
  return {
    id: subscription.id,
    customerId: typeof customer === 'string' ? customer : customer.id,
    status: subscription.status as SubscriptionStatus,
    priceId: item?.price.id ?? null,
    cancelAtPeriodEnd: subscription.cancel_at_period_end,
    currentPeriodEnd: item ? new Date(item.current_period_end * 1000) : null,
    createdAt: new Date(subscription.created * 1000),
    metadataUserId: subscription.metadata?.user_id ?? null,
  };
}

const idOf = (value: string | { id: string } | null | undefined): string | null => (value == null ? null : typeof value === 'string' ? value : value.id);

function invoiceSubscription(invoice: Stripe.Invoice & { subscription?: string | { id: string } | null }): string | null {
  return idOf(invoice.parent?.subscription_details?.subscription) ?? idOf(invoice.subscription);
}

export function toPaymentEvent(event: Stripe.Event): PaymentEvent {
  const base = { id: event.id, type: event.type, created: event.created, livemode: event.livemode };
  const object = event.data.object as unknown;
  if (event.type === 'checkout.session.completed' || event.type === 'checkout.session.expired') {
    const session = object as Stripe.Checkout.Session;
    return {
      ...base,
      kind: 'checkout_session',
      session: { id: session.id, userId: session.client_reference_id, customerId: idOf(session.customer), subscriptionId: idOf(session.subscription) },
    };
  }
  if (event.type.startsWith('customer.subscription.')) return { ...base, kind: 'subscription', subscription: toProviderSubscription(object as Stripe.Subscription) };
  if (event.type.startsWith('invoice.')) {
    const invoice = object as Stripe.Invoice;
    return { ...base, kind: 'invoice', subscriptionId: invoiceSubscription(invoice), customerId: idOf(invoice.customer) };
  }
  return { ...base, kind: 'other' };
}
