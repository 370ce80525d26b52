// Type-level test, checked by `npm run typecheck` (not run by `npm test`): each `@ts-expect-error`
// line must fail to compile, or the type check fails with "Unused '@ts-expect-error' directive".
// It proves that the compiler routes events: a misspelt event type, or a handler of another kind
// of event, is a type error rather than an event acknowledged as `ignored`.
import type Stripe from 'stripe';
import type {
  Agreeing,
  HandledEventsDisagreements,
} from '../../src/adapters/payments/stripe-mapping.ts';
import type {
  CheckoutSessionEvent,
  InvoiceEvent,
  SubscriptionEvent,
  SubscriptionNotice,
} from '../../src/domain/model/payment-events.ts';
import type { HandledEvents } from '../../src/domain/model/handled-events.ts';
import type { EventHandler } from '../../src/domain/webhooks/context.ts';
import { customerSubscriptionChanged } from '../../src/domain/webhooks/handlers/customer-subscription.ts';
import { EVENT_HANDLERS } from '../../src/domain/webhooks/handlers/index.ts';
import { invoiceSettled } from '../../src/domain/webhooks/handlers/invoice.ts';

type HandlerTable = typeof EVENT_HANDLERS;

export const misspeltInTheTable: HandlerTable = {
  ...EVENT_HANDLERS,
  // @ts-expect-error 'invoice.payed' is no event type the service handles
  'invoice.payed': invoiceSettled,
};

export const wrongKindInTheTable: HandlerTable = {
  ...EVENT_HANDLERS,
  // @ts-expect-error a subscription handler cannot take invoice.paid, which is an invoice event
  'invoice.paid': customerSubscriptionChanged,
};

export const handlerReadingAnotherKind: EventHandler<InvoiceEvent> = {
  kind: 'invoice',
  async apply(event) {
    // @ts-expect-error an invoice event carries no subscription object
    void event.subscription;
  },
};

export const handlerOfTwoMinds: EventHandler<CheckoutSessionEvent> = {
  // @ts-expect-error a handler's kind is the kind of event it takes
  kind: 'subscription',
  apply: async () => {},
};

// The SDK's union of event types, against which the domain's names are checked.
export const sdkType: Stripe.Event['type'] = 'invoice.paid';
// @ts-expect-error not an event type of the stripe SDK
export const misspeltSdkType: Stripe.Event['type'] = 'invoice.payed';

// The adapter's check of the domain's handled types against the SDK and its translation: it holds
// for the real map; a misspelt type, or a type translated to another kind, breaks it.
export type RealMap = Agreeing<HandledEventsDisagreements<HandledEvents>>;
type WithMisspelt = HandledEvents & { 'invoice.payed': InvoiceEvent };
// @ts-expect-error 'invoice.payed' is not an event type of the stripe SDK
export type MisspeltInTheDomain = Agreeing<HandledEventsDisagreements<WithMisspelt>>;
type WithAnotherKind = Omit<HandledEvents, 'invoice.paid'> & { 'invoice.paid': SubscriptionEvent };
// @ts-expect-error invoice.paid is translated to an invoice event, not a subscription event
export type TranslatedToAnotherKind = Agreeing<HandledEventsDisagreements<WithAnotherKind>>;

// The same for thin events: the SDK's notification types, each translated to its kind.
type WithMisspeltThin = HandledEvents & { 'v1.invoice.payed': InvoiceEvent };
// @ts-expect-error 'v1.invoice.payed' is not an event type of the stripe SDK
export type MisspeltThinType = Agreeing<HandledEventsDisagreements<WithMisspeltThin>>;
type ThinOfAnotherKind = Omit<HandledEvents, 'v1.invoice.paid'> & {
  'v1.invoice.paid': SubscriptionNotice;
};
// @ts-expect-error v1.invoice.paid is completed into an invoice event, not a subscription notice
export type ThinToAnotherKind = Agreeing<HandledEventsDisagreements<ThinOfAnotherKind>>;
type WithSubscriptionSnapshot = Omit<HandledEvents, 'v1.customer.subscription.updated'> & {
  'v1.customer.subscription.updated': SubscriptionEvent;
};
// @ts-expect-error a thin subscription event carries no snapshot: it is a subscription notice
export type ThinCarriesNoSnapshot = Agreeing<HandledEventsDisagreements<WithSubscriptionSnapshot>>;

// What the compiler then says.
export const misspeltReason: HandledEventsDisagreements<
  HandledEvents & { 'invoice.payed': InvoiceEvent }
> = 'invoice.payed is not an event type of the stripe SDK';
export const wrongKindReason: HandledEventsDisagreements<
  Omit<HandledEvents, 'invoice.paid'> & { 'invoice.paid': SubscriptionEvent }
> = 'invoice.paid is translated to invoice events, its handler takes subscription events';
