// Translation from Stripe's object shapes to the domain's, in one place: the handlers and the
// checkout service never see the provider's JSON. Every field used is checked here, so a signed
// but malformed event is refused (400) instead of failing the same way on every redelivery.
import type Stripe from 'stripe';
import type {
  CheckoutSessionEvent,
  HandledEvents,
  InvoiceEvent,
  OtherEvent,
  PaymentEvent,
  ProviderSubscription,
  SubscriptionEvent,
  SubscriptionStatus,
} from '../../domain/model.ts';

const MAX_UNIX_TIME = 253_402_300_799; // 9999-12-31

/** Our own id carried in provider data (metadata, client_reference_id): absent when empty. */
function nonEmptyText(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '' || value.length > 255)
    throw new TypeError(`${field} must be a non-empty string`);
  return value;
}

function unixTime(value: unknown, field: string): number {
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > MAX_UNIX_TIME)
    throw new TypeError(`${field} must be a unix time`);
  return value as number;
}

/** An expandable reference: an id, an object with an id, or nothing. */
function idOf(value: unknown, field: string): string | null {
  if (value === null || value === undefined) return null;
  return text(typeof value === 'object' ? (value as { id?: unknown }).id : value, field);
}

type SubscriptionJson = Stripe.Subscription & { current_period_end?: number };

/** An optional unix time (null or absent: none) as a date. */
function dateOrNull(value: unknown, field: string): Date | null {
  return value === undefined || value === null ? null : new Date(unixTime(value, field) * 1000);
}

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
    cancelAt: dateOrNull(subscription.cancel_at, 'subscription.cancel_at'),
    currentPeriodEnd: dateOrNull(periodEnd, 'current_period_end'),
    trialEnd: dateOrNull(subscription.trial_end, 'subscription.trial_end'),
    createdAt: new Date(unixTime(subscription.created, 'subscription.created') * 1000),
    metadataUserId: nonEmptyText(userId),
  };
}

function invoiceSubscription(invoice: Stripe.Invoice & { subscription?: unknown }): string | null {
  return (
    idOf(invoice.parent?.subscription_details?.subscription, 'invoice subscription') ??
    idOf(invoice.subscription, 'invoice.subscription')
  );
}

// The SDK's event union, by the kind of domain event each becomes. Stripe.Event is discriminated
// by `type`, so each family below is the SDK's own list of types and `data.object` is typed in it.
type CheckoutSessionEventType = 'checkout.session.completed' | 'checkout.session.expired';
type StripeCheckoutSessionEvent = Extract<Stripe.Event, { type: CheckoutSessionEventType }>;
type StripeSubscriptionEvent = Extract<Stripe.Event, { type: `customer.subscription.${string}` }>;
type StripeInvoiceEvent = Extract<Stripe.Event, { type: `invoice.${string}` }>;

const isCheckoutSessionEvent = (event: Stripe.Event): event is StripeCheckoutSessionEvent =>
  event.type === 'checkout.session.completed' || event.type === 'checkout.session.expired';
const isSubscriptionEvent = (event: Stripe.Event): event is StripeSubscriptionEvent =>
  event.type.startsWith('customer.subscription.');
const isInvoiceEvent = (event: Stripe.Event): event is StripeInvoiceEvent =>
  event.type.startsWith('invoice.');

/** The kind of domain event toPaymentEvent makes of an SDK event of type T. */
type KindOf<T extends Stripe.Event['type']> = T extends StripeCheckoutSessionEvent['type']
  ? CheckoutSessionEvent['kind']
  : T extends StripeSubscriptionEvent['type']
    ? SubscriptionEvent['kind']
    : T extends StripeInvoiceEvent['type']
      ? InvoiceEvent['kind']
      : OtherEvent['kind'];

/** Why a handled type (of a map like the domain's HandledEvents) does not agree with the SDK and this translation; never when it does. */
type Disagreement<
  Handled extends { [T in keyof Handled]: PaymentEvent },
  T extends keyof Handled & string,
> = T extends Stripe.Event['type']
  ? [Handled[T]['kind']] extends [KindOf<T>]
    ? never
    : `${T} is translated to ${KindOf<T>} events, its handler takes ${Handled[T]['kind']} events`
  : `${T} is not an event type of the stripe SDK`;

/** Every disagreement of a map of handled types; never when there is none. */
export type HandledEventsDisagreements<Handled extends { [T in keyof Handled]: PaymentEvent }> = {
  [T in keyof Handled & string]: Disagreement<Handled, T>;
}[keyof Handled & string];

/** Compiles only when there is no disagreement; otherwise the compiler's message quotes it. */
export type Agreeing<Disagreements extends never> = Disagreements;

/**
 * The domain's handled event types (HandledEvents) are the SDK's own, each translated here to the
 * kind of event its handler takes: a misspelt type, or one translated to another kind, fails
 * `npm run typecheck` on this line.
 */
export type HandledEventsAgree = Agreeing<HandledEventsDisagreements<HandledEvents>>;

export function toPaymentEvent(event: Stripe.Event): PaymentEvent {
  const base = {
    id: text(event.id, 'event.id'),
    type: text(event.type, 'event.type'),
    created: unixTime(event.created, 'event.created'),
    livemode: event.livemode === true,
  };
  if (isCheckoutSessionEvent(event)) {
    const session = event.data.object;
    return {
      ...base,
      kind: 'checkout_session',
      session: {
        id: text(session.id, 'session.id'),
        userId: nonEmptyText(session.client_reference_id),
        customerId: idOf(session.customer, 'session.customer'),
        subscriptionId: idOf(session.subscription, 'session.subscription'),
      },
    };
  }
  if (isSubscriptionEvent(event))
    return {
      ...base,
      kind: 'subscription',
      subscription: toProviderSubscription(event.data.object),
    };
  if (isInvoiceEvent(event)) {
    const invoice = event.data.object;
    return {
      ...base,
      kind: 'invoice',
      subscriptionId: invoiceSubscription(invoice),
      customerId: idOf(invoice.customer, 'invoice.customer'),
    };
  }
  return { ...base, kind: 'other' };
}
