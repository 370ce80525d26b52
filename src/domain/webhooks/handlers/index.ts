// The event types we act on, each with its handler; any other type is recorded and acknowledged
// as `ignored`. The table is keyed by HandledEventType (model/handled-events.ts), so a misspelt type, or a
// handler of another kind of event than the one its type is translated to, fails the type check.
import type { HandledEvents, HandledEventType } from '../../model/handled-events.ts';
import type { PaymentEvent } from '../../model/payment-events.ts';
import type { ApplyContext, EventHandler, PrepareContext } from '../context.ts';
import { chargeRefunded } from './charge-refunded.ts';
import { checkoutSessionCompleted } from './checkout-session-completed.ts';
import { customerSubscriptionChanged } from './customer-subscription.ts';
import { subscriptionNotice } from './subscription-notice.ts';
import { subscriptionScheduleChanged } from './subscription-schedule.ts';
import { invoiceSettled } from './invoice.ts';
import { trialWillEnd } from './trial-will-end.ts';

export const EVENT_HANDLERS: { readonly [T in HandledEventType]: EventHandler<HandledEvents[T]> } =
  {
    'checkout.session.completed': checkoutSessionCompleted,
    'checkout.session.async_payment_succeeded': checkoutSessionCompleted,
    'charge.refunded': chargeRefunded,
    'customer.subscription.created': customerSubscriptionChanged,
    'customer.subscription.updated': customerSubscriptionChanged,
    'customer.subscription.deleted': customerSubscriptionChanged,
    'customer.subscription.trial_will_end': trialWillEnd,
    'invoice.paid': invoiceSettled,
    'invoice.payment_failed': invoiceSettled,
    'subscription_schedule.created': subscriptionScheduleChanged,
    'subscription_schedule.updated': subscriptionScheduleChanged,
    'subscription_schedule.released': subscriptionScheduleChanged,
    'subscription_schedule.canceled': subscriptionScheduleChanged,
    'subscription_schedule.completed': subscriptionScheduleChanged,
    'v1.checkout.session.completed': checkoutSessionCompleted,
    'v1.checkout.session.async_payment_succeeded': checkoutSessionCompleted,
    'v1.charge.refunded': chargeRefunded,
    'v1.customer.subscription.created': subscriptionNotice,
    'v1.customer.subscription.updated': subscriptionNotice,
    'v1.customer.subscription.deleted': subscriptionNotice,
    'v1.invoice.paid': invoiceSettled,
    'v1.invoice.payment_failed': invoiceSettled,
  };

/** A handler with its event in hand. */
export interface BoundHandler {
  prepare(ctx: PrepareContext): Promise<void>;
  apply(ctx: ApplyContext): Promise<void>;
}

export const isHandled = (type: string): type is HandledEventType =>
  Object.hasOwn(EVENT_HANDLERS, type);

/** The handler for the event's type, given the event; null for a type we do not act on. */
export function handlerFor(event: PaymentEvent): BoundHandler | null {
  return isHandled(event.type) ? bind(event.type, event) : null;
}

function bind<T extends HandledEventType>(type: T, event: PaymentEvent): BoundHandler {
  const handler: EventHandler<HandledEvents[T]> = EVENT_HANDLERS[type];
  // The adapter's translation gives each handled type its kind, checked at compile time there
  // (stripe-mapping.ts); this is the same promise, checked at run time.
  if (event.kind !== handler.kind)
    throw new Error(
      `event ${event.id} (${event.type}) is a ${event.kind} event; its handler takes ${handler.kind} events`,
    );
  const typed = event as HandledEvents[T];
  return {
    prepare: async (ctx) => handler.prepare?.(typed, ctx),
    apply: (ctx) => handler.apply(typed, ctx),
  };
}
