// checkout.session.completed: link the provider customer to the user named by
// client_reference_id, close the session, and take over the new subscription.
import type { EventHandler } from '../context.ts';
import { findEventUser } from '../context.ts';
import { refreshSubscription } from '../subscription-sync.ts';

export const checkoutSessionCompleted: EventHandler = async (event, ctx) => {
  if (event.kind !== 'checkout_session') return;
  const { session } = event;
  const user = await findEventUser(ctx.tx, session.userId, session.customerId);
  if (user === null) {
    ctx.log.warn({ session: session.id }, 'completed checkout for an unknown user: acknowledged, nothing stored');
    return;
  }
  if (session.customerId !== null) await ctx.tx.users.linkCustomer(user.id, session.customerId);
  await ctx.tx.checkoutSessions.markStatus(session.id, 'complete');
  if (session.subscriptionId !== null) await refreshSubscription(ctx, session.subscriptionId, event.created);
};
