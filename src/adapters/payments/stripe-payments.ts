// PaymentsProvider on the Stripe SDK: one line per operation, its failure translated for the
// domain (stripe-failures.ts). Every creating call carries the caller's idempotency key.
import type Stripe from 'stripe';
import type {
  NewPackCheckout,
  PaymentsProvider,
  ProviderPrice,
} from '../../domain/ports/payments-provider.ts';
import type { NewCheckoutSession, ProviderCheckoutSession } from '../../domain/model/checkout.ts';
import type { ObjectNotice, PaymentEvent } from '../../domain/model/payment-events.ts';
import type { SubjectRef } from '../../domain/model/callers.ts';
import type { Logger } from '../../domain/ports/logger.ts';
import { translatingFailures } from './stripe-failures.ts';
import { toCompletedNotice, toPaymentEvent } from './stripe-mapping.ts';
import { ensurePortalConfiguration } from './stripe-portal-configuration.ts';
import {
  listSubscriptions,
  listSubscriptionsPage,
  retrieveSubscription,
  updateSubscriptionQuantity,
} from './stripe-subscriptions.ts';

function toSession(session: Stripe.Checkout.Session): ProviderCheckoutSession {
  return {
    id: session.id,
    url: session.url ?? '',
    status: (session.status ?? 'open') as ProviderCheckoutSession['status'],
    expiresAt: new Date(session.expires_at * 1000),
  };
}

/** Who pays, as the provider's metadata names them: `user_id` or `org_id`, our own id. */
export const ownerMetadata = (owner: SubjectRef): Record<string, string> =>
  owner.type === 'user' ? { user_id: owner.id } : { org_id: owner.id };

/**
 * A subscription checkout for the input's price, with the offers the server chose:
 * a trial (without a card when none is required, and then cancelled if it ends unpaid),
 * promotion codes, automatic tax (the customer exists before the session, so Checkout may write
 * the address and name it collects onto it, which Stripe requires for tax and tax ids).
 */
export function checkoutSessionParams(
  input: NewCheckoutSession,
): Stripe.Checkout.SessionCreateParams {
  const { offer } = input;
  const trial = offer.trialDays !== null;
  const cardless = trial && !offer.trialRequiresCard;
  const metadata = ownerMetadata(input.owner);
  return {
    mode: 'subscription',
    customer: input.customerId,
    client_reference_id: input.owner.id,
    line_items: [{ price: input.priceId, quantity: input.quantity }],
    success_url: input.successUrl,
    cancel_url: input.cancelUrl,
    metadata,
    subscription_data: {
      metadata,
      ...(trial && { trial_period_days: offer.trialDays! }),
      ...(cardless && { trial_settings: { end_behavior: { missing_payment_method: 'cancel' } } }),
    },
    ...(cardless && { payment_method_collection: 'if_required' }),
    ...(offer.allowPromotionCodes && { allow_promotion_codes: true }),
    ...(offer.automaticTax && {
      automatic_tax: { enabled: true },
      customer_update: { address: 'auto', name: 'auto' },
      tax_id_collection: { enabled: true },
    }),
  };
}

/**
 * A credit pack's checkout: a one-time payment of its price on the subject's customer, the pack
 * named in the session's metadata and its payment's, so either says what was bought.
 */
function packCheckoutParams(input: NewPackCheckout): Stripe.Checkout.SessionCreateParams {
  const metadata = { ...ownerMetadata(input.owner), credit_pack: input.pack };
  return {
    mode: 'payment',
    customer: input.customerId,
    client_reference_id: input.owner.id,
    line_items: [{ price: input.priceId, quantity: 1 }],
    success_url: input.successUrl,
    cancel_url: input.cancelUrl,
    metadata,
    payment_intent_data: { metadata },
    ...(input.automaticTax && {
      automatic_tax: { enabled: true },
      customer_update: { address: 'auto', name: 'auto' },
    }),
  };
}

/** Expires an open session; one already paid or expired cannot be, and is answered as it is. */
async function expireCheckoutSession(stripe: Stripe, id: string): Promise<ProviderCheckoutSession> {
  try {
    return toSession(await stripe.checkout.sessions.expire(id));
  } catch (error) {
    if ((error as Stripe.errors.StripeError).statusCode !== 400) throw error;
    return toSession(await stripe.checkout.sessions.retrieve(id));
  }
}

async function createPortalSession(
  stripe: Stripe,
  input: { customerId: string; returnUrl: string; configurationId: string },
): Promise<{ url: string } | 'configuration_refused'> {
  const params = {
    customer: input.customerId,
    return_url: input.returnUrl,
    configuration: input.configurationId,
  };
  try {
    return { url: (await stripe.billingPortal.sessions.create(params)).url };
  } catch (error) {
    // Stripe names the parameter at fault: an inactive or unknown configuration is `configuration`.
    const failure = error as Stripe.errors.StripeError;
    if (failure.type === 'StripeInvalidRequestError' && failure.param === 'configuration')
      return 'configuration_refused';
    throw error;
  }
}

async function customerExists(stripe: Stripe, customerId: string): Promise<boolean> {
  try {
    const customer = await stripe.customers.retrieve(customerId);
    return customer.deleted !== true;
  } catch (error) {
    if ((error as Stripe.errors.StripeError).statusCode === 404) return false;
    throw error;
  }
}

async function completeNotice(stripe: Stripe, notice: ObjectNotice): Promise<PaymentEvent> {
  try {
    const { type, id } = notice.related;
    const object =
      type === 'invoice'
        ? await stripe.invoices.retrieve(id)
        : type === 'charge'
          ? await stripe.charges.retrieve(id)
          : await stripe.checkout.sessions.retrieve(id);
    return toCompletedNotice(notice, object);
  } catch (error) {
    if ((error as Stripe.errors.StripeError).statusCode !== 404) throw error;
    return {
      ...notice,
      kind: 'unmappable',
      reason: `the provider does not know ${notice.related.type} ${notice.related.id}`,
    };
  }
}

const INTERVALS = ['month', 'year'] as const;

async function retrievePrice(stripe: Stripe, id: string): Promise<ProviderPrice | null> {
  try {
    const price = await stripe.prices.retrieve(id);
    const { interval, interval_count: count } = price.recurring ?? {};
    return {
      id: price.id,
      product: typeof price.product === 'string' ? price.product : price.product.id,
      currency: price.currency,
      interval: count === 1 ? (INTERVALS.find((each) => each === interval) ?? null) : null,
      oneTime: price.type === 'one_time',
      unitAmount: price.unit_amount ?? null,
    };
  } catch (error) {
    if ((error as Stripe.errors.StripeError).statusCode === 404) return null;
    throw error;
  }
}

async function undeliveredEvents(stripe: Stripe): Promise<PaymentEvent[]> {
  const events = await stripe.events
    .list({ delivery_success: false, limit: 100 })
    .autoPagingToArray({ limit: 10_000 });
  return events.reverse().map(toPaymentEvent);
}

export function createStripePayments(stripe: Stripe, log: Pick<Logger, 'error'>): PaymentsProvider {
  const call = translatingFailures(log);
  return {
    createCustomer: ({ owner, email, name }, idempotencyKey) =>
      call('customers.create', async () => {
        const params = { email, name, metadata: ownerMetadata(owner) };
        return (await stripe.customers.create(params, { idempotencyKey })).id;
      }),
    createCheckoutSession: (input, idempotencyKey) =>
      call('checkout.sessions.create', async () =>
        toSession(
          await stripe.checkout.sessions.create(checkoutSessionParams(input), { idempotencyKey }),
        ),
      ),
    createPackCheckoutSession: (input, idempotencyKey) =>
      call('checkout.sessions.create', async () =>
        toSession(
          await stripe.checkout.sessions.create(packCheckoutParams(input), { idempotencyKey }),
        ),
      ),
    retrieveCheckoutSession: (id) =>
      call('checkout.sessions.retrieve', async () =>
        toSession(await stripe.checkout.sessions.retrieve(id)),
      ),
    expireCheckoutSession: (id) =>
      call('checkout.sessions.expire', () => expireCheckoutSession(stripe, id)),
    retrieveSubscription: (id) =>
      call('subscriptions.retrieve', () => retrieveSubscription(stripe, id)),
    cancelSubscription: (id) =>
      call('subscriptions.cancel', async () => {
        await stripe.subscriptions.cancel(id);
      }),
    listSubscriptions: (customerId) =>
      call('subscriptions.list', () => listSubscriptions(stripe, customerId)),
    listSubscriptionsPage: (after) =>
      call('subscriptions.list', () => listSubscriptionsPage(stripe, after)),
    customerExists: (customerId) =>
      call('customers.retrieve', () => customerExists(stripe, customerId)),
    completeNotice: (notice) => call('events.related_object', () => completeNotice(stripe, notice)),
    undeliveredEvents: () => call('events.list', () => undeliveredEvents(stripe)),
    updateSubscriptionQuantity: (input, idempotencyKey) =>
      call('subscriptions.update', () => updateSubscriptionQuantity(stripe, input, idempotencyKey)),
    createPortalSession: (input) =>
      call('billingPortal.sessions.create', () => createPortalSession(stripe, input)),
    retrievePrice: (id) => call('prices.retrieve', () => retrievePrice(stripe, id)),
    ensurePortalConfiguration: (spec) =>
      call('billingPortal.configurations', () => ensurePortalConfiguration(stripe, spec)),
  };
}
