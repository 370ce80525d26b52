// Subscriptions read from Stripe, each answer stamped with the provider's own time (its `Date`
// header): the ordering guard compares what is stored on the provider's clock, never ours.
import type Stripe from 'stripe';
import { UnmappableAnswer } from '../../domain/errors.ts';
import type { ProviderRead, ProviderSubscription } from '../../domain/model/subscriptions.ts';
import {
  readClock,
  type SubscriptionRead,
  type SubscriptionsPage,
} from '../../domain/ports/payments-provider.ts';
import { toProviderSubscription } from './stripe-mapping.ts';

/** The provider's own time of a response (its `Date` header), unix seconds; our clock if it sent none. */
function providerTime(response: { lastResponse?: { headers?: Record<string, string> } }): number {
  const stamped = Date.parse(response.lastResponse?.headers?.date ?? '');
  return Math.floor((Number.isFinite(stamped) ? stamped : Date.now()) / 1000);
}

/** A translation of what the provider answered; failing, an UnmappableAnswer with the reason. */
function translated<T>(translate: () => T): T {
  try {
    return translate();
  } catch (error) {
    throw new UnmappableAnswer(error instanceof Error ? error.message : String(error));
  }
}

/** A page's subscriptions translated one by one: one the service cannot read is set aside. */
function translatedEach(
  listed: Stripe.Subscription[],
): Pick<SubscriptionsPage, 'subscriptions' | 'untranslatable'> {
  const page: Pick<SubscriptionsPage, 'subscriptions' | 'untranslatable'> = {
    subscriptions: [],
    untranslatable: [],
  };
  for (const subscription of listed) {
    try {
      page.subscriptions.push(toProviderSubscription(subscription));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      page.untranslatable.push({ id: String(subscription.id), reason });
    }
  }
  return page;
}

/** A read sent now: every read is recent enough for any caller. */
export async function retrieveSubscription(stripe: Stripe, id: string): Promise<SubscriptionRead> {
  const sentAt = readClock();
  try {
    const subscription = await stripe.subscriptions.retrieve(id, { expand: ['schedule'] });
    return {
      value: translated(() => toProviderSubscription(subscription)),
      readAt: providerTime(subscription),
      sentAt,
    };
  } catch (error) {
    const failure = error as Stripe.errors.StripeError;
    if (failure.statusCode !== 404) throw error;
    return {
      value: null,
      readAt: providerTime({ lastResponse: { headers: failure.headers } }),
      sentAt,
    };
  }
}

/** A listing reads each subscription's schedule with it, for the change it holds. */
const SCHEDULES = ['data.schedule'];

export async function listSubscriptions(
  stripe: Stripe,
  customerId: string,
): Promise<ProviderRead<ProviderSubscription[]>> {
  const list = { customer: customerId, status: 'all', limit: 100, expand: SCHEDULES };
  // The first page's time: every page after it is at least as current.
  const firstPage = await stripe.subscriptions.list(list);
  const rest = firstPage.has_more
    ? await stripe.subscriptions
        .list({ ...list, starting_after: firstPage.data.at(-1)!.id })
        .autoPagingToArray({ limit: 10_000 })
    : [];
  return {
    value: [...firstPage.data, ...rest].map(toProviderSubscription),
    readAt: providerTime(firstPage),
  };
}

export async function listSubscriptionsPage(
  stripe: Stripe,
  after: string | null,
): Promise<ProviderRead<SubscriptionsPage>> {
  const page = await stripe.subscriptions.list({
    status: 'all',
    limit: 100,
    expand: SCHEDULES,
    ...(after !== null && { starting_after: after }),
  });
  return {
    value: {
      ...translatedEach(page.data),
      next: page.has_more && page.data.length > 0 ? page.data.at(-1)!.id : null,
    },
    readAt: providerTime(page),
  };
}

/** The item's quantity changed, prorated on the next invoice; the answer stamped with the provider's time. */
export async function updateSubscriptionQuantity(
  stripe: Stripe,
  {
    subscriptionId,
    itemId,
    quantity,
  }: { subscriptionId: string; itemId: string; quantity: number },
  idempotencyKey: string,
): Promise<ProviderRead<ProviderSubscription>> {
  const subscription = await stripe.subscriptions.update(
    subscriptionId,
    { items: [{ id: itemId, quantity }], proration_behavior: 'create_prorations' },
    { idempotencyKey },
  );
  return {
    value: translated(() => toProviderSubscription(subscription)),
    readAt: providerTime(subscription),
  };
}
