// Translation from Stripe's object shapes to the domain's, in one place: the handlers and the
// checkout service never see the provider's JSON. Every field used is checked here, so a signed
// but malformed event is refused (400) instead of failing the same way on every redelivery.
import type Stripe from 'stripe';
import type { SubscriptionStatus } from '../../domain/model.ts';
import type { PaymentEvent, ProviderSubscription } from '../../domain/model.ts';

const MAX_UNIX_TIME = 253_402_300_799; // 9999-12-31

/** Our own id carried in provider data (metadata, client_reference_id): absent when empty. */
function nonEmptyText(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '' || value.length > 255) throw new TypeError(`${field} must be a non-empty string`);
  return value;
}

function unixTime(value: unknown, field: string): number {
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > MAX_UNIX_TIME) throw new TypeError(`${field} must be a unix time`);
  return value as number;
}

/** An expandable reference: an id, an object with an id, or nothing. */
function idOf(value: unknown, field: string): string | null {
  if (value === null || value === undefined) return null;
  return text(typeof value === 'object' ? (value as { id?: unknown }).id : value, field);
}

type SubscriptionJson = Stripe.Subscription & { current_period_end?: number };

export function toProviderSubscription(subscription: SubscriptionJson): ProviderSubscription {
  const item = subscription.items?.data?.[0];
  // Period fields live on the item since the basil API; older versions have them on the subscription.
  const periodEnd = item?.current_period_end ?? subscription.current_period_end;
  const userId = subscription.metadata?.user_id;
  return {
    id: text(subscription.id, 'subscription.id'),
    customerId: text(idOf(subscription.customer, 'subscription.customer'), 'subscription.customer'),
    status: text(subscription.status, 'subscription.status') as SubscriptionStatus,
    priceId: idOf(item?.price, 'subscription item price'),
    cancelAtPeriodEnd: subscription.cancel_at_period_end === true,
    currentPeriodEnd: periodEnd === undefined || periodEnd === null ? null : new Date(unixTime(periodEnd, 'current_period_end') * 1000),
    createdAt: new Date(unixTime(subscription.created, 'subscription.created') * 1000),
    metadataUserId: nonEmptyText(userId),
  };
}

function invoiceSubscription(invoice: Stripe.Invoice & { subscription?: unknown }): string | null {
  return idOf(invoice.parent?.subscription_details?.subscription, 'invoice subscription') ?? idOf(invoice.subscription, 'invoice.subscription');
}

export function toPaymentEvent(event: Stripe.Event): PaymentEvent {
  const base = { id: text(event.id, 'event.id'), type: text(event.type, 'event.type'), created: unixTime(event.created, 'event.created'), livemode: event.livemode === true };
  const object = event.data.object as unknown;
  if (event.type === 'checkout.session.completed' || event.type === 'checkout.session.expired') {
    const session = object as Stripe.Checkout.Session;
    const userId = session.client_reference_id;
    return {
      ...base,
      kind: 'checkout_session',
      session: {
        id: text(session.id, 'session.id'),
        userId: nonEmptyText(userId),
        customerId: idOf(session.customer, 'session.customer'),
        subscriptionId: idOf(session.subscription, 'session.subscription'),
      },
    };
  }
  if (event.type.startsWith('customer.subscription.')) return { ...base, kind: 'subscription', subscription: toProviderSubscription(object as SubscriptionJson) };
  if (event.type.startsWith('invoice.')) {
    const invoice = object as Stripe.Invoice;
    return { ...base, kind: 'invoice', subscriptionId: invoiceSubscription(invoice), customerId: idOf(invoice.customer, 'invoice.customer') };
  }
  return { ...base, kind: 'other' };
}
