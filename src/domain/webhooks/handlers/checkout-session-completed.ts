// checkout.session.completed: link the provider customer to the user named by
// client_reference_id, close the session, and take over the new subscription (read from the
// provider unless what we hold is newer than the event).
import type { PaymentEvent } from '../../model.ts';
import type { EventHandler } from '../context.ts';
import { findEventUser } from '../context.ts';
import { prepareRead, syncSubscription } from '../subscription-sync.ts';

const sessionOf = (event: PaymentEvent) => (event.kind === 'checkout_session' ? event.session : null);

export const checkoutSessionCompleted: EventHandler = {
  async prepare(event, ctx) {
    const subscriptionId = sessionOf(event)?.subscriptionId ?? null;
    if (subscriptionId !== null) await prepareRead(ctx, subscriptionId, event.created);
  },
  async apply(event, ctx) {
    const session = sessionOf(event);
    if (session === null) return;
    const user = await findEventUser(ctx, session.userId, session.customerId);
    if (user === null) return ctx.log.warn({ session: session.id }, 'completed checkout for an unknown user: acknowledged, nothing stored');
    if (session.customerId !== null) await ctx.tx.users.linkCustomer(user.id, session.customerId);
    await ctx.tx.checkoutSessions.markStatus(session.id, 'complete');
    if (session.subscriptionId !== null) await syncSubscription(ctx, session.subscriptionId, event.created, null);
  },
};
