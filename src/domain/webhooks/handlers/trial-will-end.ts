// customer.subscription.trial_will_end: the provider's notice that a trial ends soon (three days
// before, or at once when the trial is ended early). Nothing changes yet: the new state comes with
// the customer.subscription.updated (or .deleted) that follows. The event is recorded and
// acknowledged, logged at info with who pays (a user or an organisation), and told to the
// application (`trial.will_end`), for whatever reminds them to pay.
import type { SubscriptionEvent } from '../../model.ts';
import type { EventHandler } from '../context.ts';
import { findEventSubject } from '../context.ts';
import { draftEvent } from '../../events/event-body.ts';

export const trialWillEnd: EventHandler<SubscriptionEvent> = {
  kind: 'subscription',
  async apply(event, ctx) {
    const { subscription } = event;
    const named = { userId: subscription.metadataUserId, orgId: subscription.metadataOrgId };
    const subject = await findEventSubject(ctx, named, subscription.customerId);
    const user = subject?.ref.type === 'user' ? subject.ref.id : null;
    ctx.log.info(
      {
        user,
        ...(subject?.ref.type === 'organization' && { organization: subject.ref.id }),
        idpId: subject?.idpId ?? null,
        subscription: subscription.id,
        trialEnd: subscription.trialEnd?.toISOString() ?? null,
      },
      subject === null ? 'trial ends soon, for a customer of no user' : 'trial ends soon',
    );
    if (subject === null || subscription.trialEnd === null) return;
    const about = { type: subject.ref.type, id: subject.ref.id, idp_id: subject.idpId };
    const notice = {
      type: 'trial.will_end',
      data: { trial_end: subscription.trialEnd.toISOString() },
    } as const;
    const { now } = ctx.telling;
    await ctx.tx.outbox.append(subject.ref, [draftEvent(about, notice, now)], now);
  },
};
