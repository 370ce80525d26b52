// The event types we act on. Any other type is recorded and acknowledged as `ignored`.
import type { EventHandler } from '../context.ts';
import { checkoutSessionCompleted } from './checkout-session-completed.ts';
import { customerSubscriptionChanged } from './customer-subscription.ts';
import { invoiceSettled } from './invoice.ts';

export const EVENT_HANDLERS: Readonly<Record<string, EventHandler>> = {
  'checkout.session.completed': checkoutSessionCompleted,
  'customer.subscription.created': customerSubscriptionChanged,
  'customer.subscription.updated': customerSubscriptionChanged,
  'customer.subscription.deleted': customerSubscriptionChanged,
  'invoice.paid': invoiceSettled,
  'invoice.payment_failed': invoiceSettled,
};
