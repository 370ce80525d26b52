// checkout.session.completed: link the provider customer to who the session names (an
// organisation by its metadata, a user by client_reference_id), close the session, and take over the new subscription (read from the
// provider unless what we hold is newer than the event).
import type { CheckoutSessionEvent } from '../../model.ts';
import type { EventHandler } from '../context.ts';
import { linkCustomerTo } from '../../billing/billing-subject.ts';
import { findEventSubject } from '../context.ts';
import { prepareRead, syncSubscription } from '../subscription-sync.ts';

export const checkoutSessionCompleted: EventHandler<CheckoutSessionEvent> = {
  kind: 'checkout_session',
  async prepare(event, ctx) {
    const subscriptionId = event.session.subscriptionId;
    if (subscriptionId !== null) await prepareRead(ctx, subscriptionId, event.created);
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
    await ctx.tx.checkoutSessions.markStatus(session.id, 'complete');
    if (session.subscriptionId !== null)
      await syncSubscription(ctx, session.subscriptionId, event.created, null);
  },
};
