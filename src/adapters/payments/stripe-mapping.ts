// Translation from Stripe's object shapes to the domain's, in one place, every field used checked:
// an event whose own facts (id, type, created) do not hold is no event (400); one whose object
// cannot be translated becomes an `unmappable` event, recorded with its reason, instead of failing
// the same way on every redelivery.
import type Stripe from 'stripe';
import type {
  ChargeEvent,
  CheckoutSessionEvent,
  InvoiceEvent,
  ObjectNotice,
  OtherEvent,
  PaymentEvent,
  ScheduleEvent,
  SubscriptionEvent,
  SubscriptionNotice,
} from '../../domain/model/payment-events.ts';
import type { HandledEvents } from '../../domain/model/handled-events.ts';
import type {
  PendingChange,
  ProviderSubscription,
  SubscriptionStatus,
} from '../../domain/model/subscriptions.ts';
import { idOf, nonEmptyText, text, unixTime } from './stripe-fields.ts';
import { toCharge, toCheckoutSession, toInvoice } from './stripe-purchases.ts';

/**
 * The subscription's customer. A subscription of an Accounts v2 customer names an account
 * (`customer_account`), which this service cannot link to a user: it links Customers only.
 */
function customerOf(subscription: Stripe.Subscription): string {
  const customer = idOf(subscription.customer, 'subscription.customer');
  if (customer !== null) return customer;
  const account = subscription.customer_account;
  throw new TypeError(
    typeof account === 'string' && account !== ''
      ? `subscription ${String(subscription.id)} belongs to the Accounts v2 account ${account} (customer_account, no customer): users are linked to Customers only`
      : 'subscription.customer must be a non-empty string',
  );
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
  return {
    id: text(subscription.id, 'subscription.id'),
    customerId: customerOf(subscription),
    status: text(subscription.status, 'subscription.status') as SubscriptionStatus,
    priceId: idOf(item?.price, 'subscription item price'),
    itemId: nonEmptyText(item?.id),
    quantity: quantityOf(item?.quantity),
    cancelAtPeriodEnd: subscription.cancel_at_period_end === true,
    cancelAt: dateOrNull(subscription.cancel_at, 'subscription.cancel_at'),
    currentPeriodEnd: dateOrNull(periodEnd, 'current_period_end'),
    trialEnd: dateOrNull(subscription.trial_end, 'subscription.trial_end'),
    createdAt: new Date(unixTime(subscription.created, 'subscription.created') * 1000),
    metadataUserId: nonEmptyText(subscription.metadata?.user_id),
    metadataOrgId: nonEmptyText(subscription.metadata?.org_id),
    ...scheduleOf(subscription.schedule),
  };
}

/** The schedule when the read expanded it, null when none manages the subscription; else absent. */
function scheduleOf(
  schedule: SubscriptionJson['schedule'],
): Pick<ProviderSubscription, 'schedule'> {
  if (schedule === null || schedule === undefined) return { schedule: null };
  return typeof schedule === 'string' ? {} : { schedule: toSchedule(schedule) };
}

/** An item's quantity: a whole number a PostgreSQL integer holds; absent (a metered price): null. */
function quantityOf(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > 2_147_483_647)
    throw new TypeError('subscription item quantity must be a whole number');
  return value as number;
}

function invoiceSubscription(invoice: Stripe.Invoice & { subscription?: unknown }): string | null {
  return (
    idOf(invoice.parent?.subscription_details?.subscription, 'invoice subscription') ??
    idOf(invoice.subscription, 'invoice.subscription')
  );
}

// The SDK's event union, by the kind of domain event each becomes. Stripe.Event is discriminated
// by `type`, so each family below is the SDK's own list of types and `data.object` is typed in it.
type StripeCheckoutSessionEvent = Extract<Stripe.Event, { type: `checkout.session.${string}` }>;
// A charge's own events (not its disputes', whose object is a dispute).
type StripeChargeEvent = Extract<Stripe.Event, { type: 'charge.refunded' }>;
type StripeSubscriptionEvent = Extract<Stripe.Event, { type: `customer.subscription.${string}` }>;
type StripeInvoiceEvent = Extract<Stripe.Event, { type: `invoice.${string}` }>;
type StripeScheduleEvent = Extract<Stripe.Event, { type: `subscription_schedule.${string}` }>;

const isCheckoutSessionEvent = (event: Stripe.Event): event is StripeCheckoutSessionEvent =>
  event.type.startsWith('checkout.session.');
const isChargeEvent = (event: Stripe.Event): event is StripeChargeEvent =>
  event.type === 'charge.refunded';
const isSubscriptionEvent = (event: Stripe.Event): event is StripeSubscriptionEvent =>
  event.type.startsWith('customer.subscription.');
const isInvoiceEvent = (event: Stripe.Event): event is StripeInvoiceEvent =>
  event.type.startsWith('invoice.');
const isScheduleEvent = (event: Stripe.Event): event is StripeScheduleEvent =>
  event.type.startsWith('subscription_schedule.');

/** The kind of domain event toPaymentEvent makes of an SDK event of type T. */
type SnapshotKindOf<T extends Stripe.Event['type']> = T extends StripeCheckoutSessionEvent['type']
  ? CheckoutSessionEvent['kind']
  : T extends StripeChargeEvent['type']
    ? ChargeEvent['kind']
    : T extends StripeSubscriptionEvent['type']
      ? SubscriptionEvent['kind']
      : T extends StripeInvoiceEvent['type']
        ? InvoiceEvent['kind']
        : T extends StripeScheduleEvent['type']
          ? ScheduleEvent['kind']
          : OtherEvent['kind'];

/** The SDK's thin event types (its event notifications). */
type ThinEventType = Stripe.V2.Core.EventNotification['type'];

/**
 * The kind of domain event a thin event of type T becomes: a subscription's names it (read by its
 * handler); an invoice's or a checkout session's is read first and becomes what its snapshot would.
 */
type ThinKindOf<T extends ThinEventType> = T extends `v1.customer.subscription.${string}`
  ? SubscriptionNotice['kind']
  : T extends `v1.${infer Snapshot extends StripeCheckoutSessionEvent['type'] | StripeInvoiceEvent['type'] | StripeChargeEvent['type']}`
    ? SnapshotKindOf<Snapshot>
    : OtherEvent['kind'];

type KindOf<T extends Stripe.Event['type'] | ThinEventType> = T extends Stripe.Event['type']
  ? SnapshotKindOf<T>
  : T extends ThinEventType
    ? ThinKindOf<T>
    : never;

/** Why a handled type (of a map like the domain's HandledEvents) does not agree with the SDK and this translation; never when it does. */
type Disagreement<
  Handled extends { [T in keyof Handled]: PaymentEvent },
  T extends keyof Handled & string,
> = T extends Stripe.Event['type'] | ThinEventType
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

/** What every event carries; throws when they do not hold (then it is no event at all). */
function factsOf(event: { id: unknown; type: unknown; livemode?: unknown }, created: number) {
  return {
    id: text(event.id, 'event.id'),
    type: text(event.type, 'event.type'),
    created,
    livemode: event.livemode === true,
  };
}

const reasonOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

/**
 * The domain's event for a snapshot event. Throws when the event's own facts do not hold; an
 * object it cannot translate makes an `unmappable` event with the reason.
 */
export function toPaymentEvent(event: Stripe.Event): PaymentEvent {
  const base = factsOf(event, unixTime(event.created, 'event.created'));
  try {
    return translate(event, base);
  } catch (error) {
    return { ...base, kind: 'unmappable', reason: reasonOf(error) };
  }
}

function translate(event: Stripe.Event, base: ReturnType<typeof factsOf>): PaymentEvent {
  if (isCheckoutSessionEvent(event))
    return { ...base, kind: 'checkout_session', session: toCheckoutSession(event.data.object) };
  if (isChargeEvent(event)) return { ...base, kind: 'charge', charge: toCharge(event.data.object) };
  if (isSubscriptionEvent(event))
    return {
      ...base,
      kind: 'subscription',
      subscription: toProviderSubscription(event.data.object),
    };
  if (isScheduleEvent(event))
    return { ...base, kind: 'schedule', schedule: toSchedule(event.data.object) };
  if (isInvoiceEvent(event)) {
    const invoice = event.data.object;
    return {
      ...base,
      kind: 'invoice',
      subscriptionId: invoiceSubscription(invoice),
      customerId: idOf(invoice.customer, 'invoice.customer'),
      invoice: toInvoice(invoice),
    };
  }
  return { ...base, kind: 'other' };
}

const ENDED_SCHEDULES = ['released', 'canceled', 'completed'];

/**
 * The change an active schedule holds: the first phase after the current one whose price differs
 * from the current phase's (a portal downgrade's second phase), at its start.
 */
function scheduledChange(schedule: Stripe.SubscriptionSchedule): PendingChange | null {
  if (schedule.status !== 'active' || schedule.current_phase === null) return null;
  const { start_date: start } = schedule.current_phase;
  const priceOf = (phase: Stripe.SubscriptionSchedule.Phase) =>
    idOf(phase.items[0]?.price, 'phases[].items[0].price');
  const current = schedule.phases.find((phase) => phase.start_date === start);
  const next = schedule.phases.find(
    (phase) => phase.start_date > start && priceOf(phase) !== (current && priceOf(current)),
  );
  if (next === undefined) return null;
  return {
    priceId: text(priceOf(next), 'phases[].items[0].price'),
    effectiveAt: new Date(unixTime(next.start_date, 'phases[].start_date') * 1000),
  };
}

function toSchedule(schedule: Stripe.SubscriptionSchedule): ScheduleEvent['schedule'] {
  return {
    id: text(schedule.id, 'schedule.id'),
    subscriptionId:
      idOf(schedule.subscription, 'schedule.subscription') ??
      nonEmptyText(schedule.released_subscription),
    ended: ENDED_SCHEDULES.includes(schedule.status),
    change: scheduledChange(schedule),
  };
}

/** A thin event as it arrives: the SDK's notification fields, before any is checked. */
export type ThinEventJson = Omit<Stripe.V2.Core.EventBase, 'created'> & {
  created: unknown;
  related_object?: Partial<Stripe.V2.Core.Events.RelatedObject> | null;
};

/** An ISO 8601 time (a thin event's `created`, with milliseconds) as the unix second it falls in. */
function isoSecond(value: unknown, field: string): number {
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms)) throw new TypeError(`${field} must be an ISO 8601 time`);
  return unixTime(Math.floor(ms / 1000), field);
}

/** The object types a handled thin event may name, by its type's family. */
const THIN_OBJECT_TYPES: Record<string, string> = {
  'v1.checkout.session.': 'checkout.session',
  'v1.invoice.': 'invoice',
  'v1.charge.refunded': 'charge',
};

/**
 * The domain's event for a thin event: a subscription's names the subscription; an invoice's or a
 * checkout session's names its object, for the service to read; any other is `other`. Throws when
 * the event's own facts (id, type, created) do not hold; a missing or foreign `related_object`
 * makes an `unmappable` event.
 */
export function toThinEvent(event: ThinEventJson): PaymentEvent {
  const base = factsOf(event, isoSecond(event.created, 'event.created'));
  try {
    const related = event.related_object;
    if (base.type.startsWith('v1.customer.subscription.')) {
      if (related?.type !== 'subscription')
        throw new TypeError(`${base.type} names no subscription in related_object`);
      const notice: SubscriptionNotice = {
        ...base,
        kind: 'subscription_notice',
        subscriptionId: text(related.id, 'related_object.id'),
      };
      return notice;
    }
    const family = Object.keys(THIN_OBJECT_TYPES).find((prefix) => base.type.startsWith(prefix));
    if (family === undefined) return { ...base, kind: 'other' };
    const objectType = THIN_OBJECT_TYPES[family]!;
    if (related?.type !== objectType)
      throw new TypeError(`${base.type} names no ${objectType} in related_object`);
    const notice: ObjectNotice = {
      ...base,
      kind: 'object_notice',
      related: { type: objectType, id: text(related.id, 'related_object.id') },
    };
    return notice;
  } catch (error) {
    return { ...base, kind: 'unmappable', reason: reasonOf(error) };
  }
}

/**
 * The domain's event for a thin event whose object was read (`object`, as the provider answers
 * now): what its snapshot event would be, under the thin event's own id, type and time.
 */
export function toCompletedNotice(notice: ObjectNotice, object: unknown): PaymentEvent {
  const snapshot = {
    id: notice.id,
    type: notice.type.slice('v1.'.length),
    created: notice.created,
    livemode: notice.livemode,
    object: 'event',
    data: { object },
  } as unknown as Stripe.Event;
  const translated = toPaymentEvent(snapshot);
  return { ...translated, type: notice.type };
}
