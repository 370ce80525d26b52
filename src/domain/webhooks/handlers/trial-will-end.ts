// customer.subscription.trial_will_end: the provider's notice that a trial ends soon (three days
// before, or at once when the trial is ended early). Nothing changes yet: the new state comes with
// the customer.subscription.updated (or .deleted) that follows. The event is recorded and
// acknowledged, logged at info with who pays (a user or an organisation), and told to the
// application (`trial.will_end`), for whatever reminds them to pay: only while the trial is still
// to end, as the newer of the event and the stored subscription says (a trial ended at once, or
// one whose end passed while the notice was late, is not announced).
import type { SubscriptionEvent } from '../../model/payment-events.ts';
import type { EventHandler } from '../context.ts';
import { findEventSubject } from '../context.ts';
import { draftEvent } from '../../events/app-events.ts';

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
        trialEnd: subscription.trialEnd,
      },
      subject === null ? 'trial ends soon, for a customer of no user' : 'trial ends soon',
    );
    const { now } = ctx.telling;
    const stored = await ctx.tx.subscriptions.find(subscription.id);
    const current = stored !== null && stored.asOf > event.created ? stored : subscription;
    const { trialEnd } = current;
    if (subject === null || current.status !== 'trialing' || trialEnd === null) return;
    if (trialEnd <= now)
      return ctx.log.info({ subscription: subscription.id }, 'trial ended already: not announced');
    const about = { type: subject.ref.type, id: subject.ref.id, idp_id: subject.idpId };
    const notice = { type: 'trial.will_end', data: { trial_end: trialEnd } } as const;
    await ctx.tx.outbox.append(subject.ref, [draftEvent(about, notice, now)], now);
  },
};
