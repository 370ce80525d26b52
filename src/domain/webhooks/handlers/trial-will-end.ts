// customer.subscription.trial_will_end: the provider's notice that a trial ends soon (three days
// before, or at once when the trial is ended early). Nothing changes yet: the new state comes with
// the customer.subscription.updated (or .deleted) that follows. The event is recorded and
// acknowledged, and logged at info with its user, for whatever reminds the user to pay.
import type { SubscriptionEvent } from '../../model.ts';
import type { EventHandler } from '../context.ts';
import { findEventUser } from '../context.ts';

export const trialWillEnd: EventHandler<SubscriptionEvent> = {
  kind: 'subscription',
  async apply(event, ctx) {
    const { subscription } = event;
    const user = await findEventUser(ctx, subscription.metadataUserId, subscription.customerId);
    ctx.log.info(
      {
        user: user?.id ?? null,
        idpId: user?.idpId ?? null,
        subscription: subscription.id,
        trialEnd: subscription.trialEnd?.toISOString() ?? null,
      },
      user === null ? 'trial ends soon, for a customer of no user' : 'trial ends soon',
    );
  },
};
