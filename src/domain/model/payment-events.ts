// A verified provider event, translated by the payments adapter into one of these kinds: what the
// handlers need of it and nothing of the provider's wire format.
import type { ProviderSchedule, ProviderSubscription } from './subscriptions.ts';

/** What every verified provider event carries, whatever its kind. */
interface EventFacts {
  id: string;
  type: string;
  /** Unix seconds, provider clock. */
  created: number;
  livemode: boolean;
}

export interface CheckoutSessionEvent extends EventFacts {
  kind: 'checkout_session';
  session: {
    id: string;
    /** Our ids the session names: an organisation's (metadata), else a user's (client_reference_id). */
    userId: string | null;
    orgId: string | null;
    customerId: string | null;
    subscriptionId: string | null;
    /** `payment`: a one-time purchase (a credit pack, named in `creditPack`); `subscription` otherwise. */
    mode: 'payment' | 'setup' | 'subscription';
    paymentStatus: 'paid' | 'unpaid' | 'no_payment_required';
    /** The pack a credit checkout sells (its metadata's `credit_pack`); null for any other. */
    creditPack: string | null;
    paymentIntentId: string | null;
  };
}

/** A subscription schedule's event. */
export interface ScheduleEvent extends EventFacts {
  kind: 'schedule';
  schedule: ProviderSchedule;
}

export interface SubscriptionEvent extends EventFacts {
  kind: 'subscription';
  subscription: ProviderSubscription;
}

export interface InvoiceEvent extends EventFacts {
  kind: 'invoice';
  subscriptionId: string | null;
  customerId: string | null;
  invoice: {
    id: string;
    /** Why it was made: `subscription_create` and `subscription_cycle` open a new period. */
    billingReason: string | null;
    /** The subscription's line: its price and the period it bills; null when it has none. */
    line: { priceId: string; periodEnd: Date } | null;
  };
}

/** A charge's event: a refund names the payment it refunds and how much of it is refunded by now. */
export interface ChargeEvent extends EventFacts {
  kind: 'charge';
  charge: {
    id: string;
    paymentIntentId: string | null;
    amount: number;
    /** Refunded so far, all refunds together. */
    amountRefunded: number;
  };
}

export interface OtherEvent extends EventFacts {
  kind: 'other';
}

/**
 * A thin event (the provider's event notification) about a subscription: it says that the
 * subscription changed, and when, and carries none of it; the handler reads it from the provider.
 */
export interface SubscriptionNotice extends EventFacts {
  kind: 'subscription_notice';
  subscriptionId: string;
}

/**
 * A thin event about another object (an invoice, a checkout session), which the service reads from
 * the provider before handling it as the snapshot event of the same type (webhook-service.ts).
 */
export interface ObjectNotice extends EventFacts {
  kind: 'object_notice';
  /** The object the event is about: the provider's name of its type, and its id. */
  related: { type: string; id: string };
}

/**
 * A verified event the adapter cannot translate (a customer it cannot name, a shape it does not
 * know): acknowledged, recorded with its reason, never handled.
 */
export interface UnmappableEvent extends EventFacts {
  kind: 'unmappable';
  reason: string;
}

/** A verified provider event, translated by the adapter into what the handlers need. */
export type PaymentEvent =
  | CheckoutSessionEvent
  | SubscriptionEvent
  | ScheduleEvent
  | InvoiceEvent
  | ChargeEvent
  | OtherEvent
  | SubscriptionNotice
  | ObjectNotice
  | UnmappableEvent;
