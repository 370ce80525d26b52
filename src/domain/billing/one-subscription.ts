// What a completed checkout closes, so a subject holds one subscription and has one trial, ever:
// the subject's other sessions, expired at the provider before they can be paid, and a trial paid
// anyway (two trial sessions paid before the second was expired). Such a trial is cancelled at
// once: nothing has been charged yet, the customer is never billed for a subscription they were
// not offered, and their next checkout sells the plan without a trial. Both run outside any
// transaction, before the event's.
import type { ProviderSubscription } from '../model/subscriptions.ts';
import type { Logger } from '../ports/logger.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { CheckoutSessionsRepository } from '../ports/checkout-sessions.ts';
import { expireAtProvider } from './subject-sessions.ts';

export interface ClosingDeps {
  payments: Pick<
    PaymentsProvider,
    'expireCheckoutSession' | 'listSubscriptions' | 'cancelSubscription'
  >;
  sessions: Pick<CheckoutSessionsRepository, 'othersOf' | 'markStatus'>;
  log: Pick<Logger, 'warn'>;
}

/** Expires every other session of the same subject as this one that may still be paid. */
export async function closeOtherSessions(sessionId: string, deps: ClosingDeps): Promise<void> {
  await expireAtProvider(await deps.sessions.othersOf(sessionId), deps.payments, deps.sessions);
}

/** Made earlier: by the provider's creation time, then by id, the same on every instance. */
const madeBefore = (a: ProviderSubscription, b: ProviderSubscription): boolean =>
  a.createdAt.getTime() < b.createdAt.getTime() ||
  (a.createdAt.getTime() === b.createdAt.getTime() && a.id < b.id);

/** Cancels the checkout's subscription when it is trialing and the customer had an earlier one. */
export async function cancelSecondTrial(
  subscriptionId: string,
  customerId: string,
  { payments, log }: ClosingDeps,
): Promise<void> {
  const { value: subscriptions } = await payments.listSubscriptions(customerId);
  const started = subscriptions.find((s) => s.id === subscriptionId);
  if (started?.status !== 'trialing') return;
  const earlier = subscriptions.find((s) => madeBefore(s, started));
  if (earlier === undefined) return;
  await payments.cancelSubscription(subscriptionId);
  log.warn(
    { subscription: subscriptionId, earlier: earlier.id, customer: customerId },
    'a second trial was paid for: its subscription was cancelled at once',
  );
}
