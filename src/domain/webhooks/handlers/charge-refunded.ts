// charge.refunded for a credit pack's payment: the refunded share of the pack's credits removed,
// from purchased credits as far as they go (never below zero; what could not be removed is said on
// the entry and not carried to a later refund). The charge says how much is refunded by now, all
// refunds together, so each event takes only what the refunds before it did not: in any order, and
// once however often it is delivered. A payment that bought no pack is not ours to count.
import { changeCredits } from '../../credits/credit-changes.ts';
import type { ChargeEvent } from '../../model/payment-events.ts';
import type { EventHandler } from '../context.ts';
import { holderOf } from '../../credits/credit-holders.ts';

/** What all refunds of a payment are due together: `floor(credits * refunded / amount)`. */
export const refundsDue = (credits: number, amount: number, refunded: number): number =>
  amount === 0 ? credits : Math.floor((credits * Math.min(refunded, amount)) / amount);

export const chargeRefunded: EventHandler<ChargeEvent> = {
  kind: 'charge',
  async apply(event, ctx) {
    const { charge } = event;
    if (charge.paymentIntentId === null) return;
    const purchase = await ctx.tx.credits.purchaseByPayment(charge.paymentIntentId);
    if (purchase === null) return;
    const dueByNow = refundsDue(purchase.credits, charge.amount, charge.amountRefunded);
    const due = dueByNow - purchase.refundedDue;
    if (due <= 0) return;
    await ctx.tx.credits.setRefundedDue(purchase.sessionId, dueByNow);
    const { type, id } = purchase.subject;
    const account =
      type === 'user' ? await ctx.tx.users.findById(id) : await ctx.tx.organizations.findById(id);
    if (account === null)
      throw new Error(`credit purchase ${purchase.sessionId} of no ${type} ${id}`);
    const { now } = ctx.telling;
    const { result: short } = await changeCredits(
      ctx.tx,
      holderOf(account, ctx.telling.policy, now),
      { rules: ctx.credits, now },
      (credits) =>
        credits.refund(due, {
          source: `refund:${charge.id}:${dueByNow}`,
          what: `pack ${purchase.pack}, ${charge.amountRefunded} of ${charge.amount} refunded`,
        }),
    );
    if (short > 0)
      ctx.log.warn(
        { charge: charge.id, session: purchase.sessionId, due, short },
        'refund of a credit pack: part of its credits were spent already; balance left at zero',
      );
  },
};
