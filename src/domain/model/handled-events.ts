// The provider's event types the service acts on, and the record of each event processed.
import type {
  ChargeEvent,
  CheckoutSessionEvent,
  InvoiceEvent,
  ScheduleEvent,
  SubscriptionEvent,
  SubscriptionNotice,
} from './payment-events.ts';

/**
 * The provider's event types the service acts on, each with the kind of event it is translated
 * to, which is the kind its handler takes (webhooks/handlers/index.ts). Any other type is recorded
 * and acknowledged as `ignored`. The payments adapter checks these names against the provider
 * SDK's own list of event types, and that it translates each to this kind (stripe-mapping.ts).
 */
export interface HandledEvents {
  'checkout.session.completed': CheckoutSessionEvent;
  'checkout.session.async_payment_succeeded': CheckoutSessionEvent;
  'charge.refunded': ChargeEvent;
  'customer.subscription.created': SubscriptionEvent;
  'customer.subscription.updated': SubscriptionEvent;
  'customer.subscription.deleted': SubscriptionEvent;
  'customer.subscription.trial_will_end': SubscriptionEvent;
  'invoice.paid': InvoiceEvent;
  'invoice.payment_failed': InvoiceEvent;
  'subscription_schedule.created': ScheduleEvent;
  'subscription_schedule.updated': ScheduleEvent;
  'subscription_schedule.released': ScheduleEvent;
  'subscription_schedule.canceled': ScheduleEvent;
  'subscription_schedule.completed': ScheduleEvent;
  // The same six as thin events (`v1.` and the snapshot type): a subscription's three are read
  // by their handler; the others are read by the service and then handled as their snapshots.
  'v1.checkout.session.completed': CheckoutSessionEvent;
  'v1.checkout.session.async_payment_succeeded': CheckoutSessionEvent;
  'v1.charge.refunded': ChargeEvent;
  'v1.customer.subscription.created': SubscriptionNotice;
  'v1.customer.subscription.updated': SubscriptionNotice;
  'v1.customer.subscription.deleted': SubscriptionNotice;
  'v1.invoice.paid': InvoiceEvent;
  'v1.invoice.payment_failed': InvoiceEvent;
}

export type HandledEventType = keyof HandledEvents;

/** The record of a processed event, written in the same transaction as its effects. */
export interface WebhookEventRecord {
  id: string;
  type: string;
  livemode: boolean;
  outcome: 'processed' | 'ignored';
  created: number;
}
