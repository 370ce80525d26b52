// A credit pack's checkout, paid (`checkout.session.completed` with payment_status `paid`, or
// `checkout.session.async_payment_succeeded` for one paid later): the pack's credits added once per
// session, however many events say so, in the event's transaction; the application told
// `credits.purchased`. An unpaid completion adds nothing: its payment is still on its way.
import { changeCredits } from '../../credits/credit-changes.ts';
import { packNamed } from '../../credits/credit-packs.ts';
import type { CheckoutSessionEvent } from '../../model/payment-events.ts';
import { creditHolder, type ApplyContext, type PayingSubject } from '../context.ts';

export async function addPaidPack(
  ctx: ApplyContext,
  subject: PayingSubject,
  session: CheckoutSessionEvent['session'],
): Promise<void> {
  const name = session.creditPack!;
  const log = { session: session.id, pack: name };
  if (session.paymentStatus !== 'paid')
    return ctx.log.info(
      log,
      'credit pack checkout completed unpaid: added once its payment succeeds',
    );
  const pack = packNamed(ctx.credits, name);
  if (pack === null)
    return ctx.log.warn(log, 'credit pack paid for is not in BILLING_CREDIT_PACKS: nothing added');
  const { ref } = subject;
  const recorded = await ctx.tx.credits.recordPurchase({
    sessionId: session.id,
    subject: ref,
    pack: pack.name,
    credits: pack.credits,
    paymentIntentId: session.paymentIntentId,
  });
  if (!recorded) return;
  const { now } = ctx.telling;
  const holder = creditHolder(subject, ctx.telling.policy, now);
  await changeCredits(ctx.tx, holder, { rules: ctx.credits, now }, (account, told) => {
    account.add('purchase', pack.credits, `checkout:${session.id}`, `pack ${pack.name}`);
    told.push({
      type: 'credits.purchased',
      data: { pack: pack.name, credits: pack.credits, balance: account.total },
    });
  });
}
