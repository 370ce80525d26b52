// checkout.session.completed: link the provider customer to who the session names (an
// organisation by its metadata, a user by client_reference_id), close the session, and take over
// the new subscription (read from the provider unless what we hold is newer than the event).
// First, outside the transaction: the subject's other sessions are expired, and a second trial
// paid anyway is cancelled (one-subscription.ts). A credit pack's session (mode `payment`) adds
// its credits once paid (credit-pack-paid.ts), here or with async_payment_succeeded.
import type { CheckoutSessionEvent } from '../../model/payment-events.ts';
import type { EventHandler } from '../context.ts';
import { linkCustomerTo } from '../../billing/billing-subject.ts';
import { cancelSecondTrial, closeOtherSessions } from '../../billing/one-subscription.ts';
import { findEventSubject } from '../context.ts';
import { addPaidPack } from './credit-pack-paid.ts';
import { prepareRead, syncSubscription } from '../subscription-sync.ts';

export const checkoutSessionCompleted: EventHandler<CheckoutSessionEvent> = {
  kind: 'checkout_session',
  async prepare(event, ctx) {
    const { id, subscriptionId, customerId, creditPack } = event.session;
    if (creditPack !== null) return;
    const closing = { payments: ctx.payments, sessions: ctx.store.checkoutSessions, log: ctx.log };
    await closeOtherSessions(id, closing);
    if (subscriptionId === null) return;
    if (customerId !== null) await cancelSecondTrial(subscriptionId, customerId, closing);
    await prepareRead(ctx, subscriptionId, event.created);
  },
  async apply(event, ctx) {
    const { session } = event;
    const subject = await findEventSubject(ctx, session, session.customerId);
    if (subject === null)
      return ctx.log.warn(
        { session: session.id },
        'completed checkout for an unknown user: acknowledged, nothing stored',
      );
    if (session.customerId !== null) await linkCustomerTo(ctx.tx, subject.ref, session.customerId);
    if (session.creditPack !== null) return addPaidPack(ctx, subject, session);
    await ctx.tx.checkoutSessions.markStatus(session.id, 'complete');
    if (session.subscriptionId !== null)
      await syncSubscription(ctx, session.subscriptionId, event.created, null);
  },
};
