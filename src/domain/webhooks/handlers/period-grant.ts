// A paid tier's credits, granted when an invoice of its subscription for a new period is paid
// (`subscription_create` or `subscription_cycle`): once per invoice whatever the redeliveries,
// expiring at the end of the period its line bills. A plan change within a period (any other
// reason) grants nothing. An invoice late enough that a later period's grant is held already, or
// whose period is over, grants nothing either: a subject holds one grant, the newest.
import { tierOfPrice } from '../../billing/tier.ts';
import { changeCredits } from '../../credits/credit-changes.ts';
import type { InvoiceEvent } from '../../model/payment-events.ts';
import { creditHolder, findEventSubject, type ApplyContext } from '../context.ts';

const NEW_PERIOD = ['subscription_create', 'subscription_cycle'];

export async function grantPaidPeriod(event: InvoiceEvent, ctx: ApplyContext): Promise<void> {
  const { invoice } = event;
  const { now, policy } = ctx.telling;
  const line = invoice.line;
  if (!NEW_PERIOD.includes(invoice.billingReason ?? '') || line === null || line.periodEnd <= now)
    return;
  const tier = tierOfPrice(line.priceId, policy);
  const amount = tier === null ? 0 : ctx.credits.creditsOf(tier);
  if (amount === 0) return;
  const named = { userId: null, orgId: null };
  const subject = await findEventSubject(ctx, named, event.customerId);
  if (subject === null) return;
  const source = `invoice:${invoice.id}`;
  const holder = creditHolder(subject, policy, now, tier!);
  await changeCredits(ctx.tx, holder, { rules: ctx.credits, now }, async (account) => {
    const held = account.balance.grant;
    if (held !== null && held.expiresAt >= line.periodEnd) return;
    if (await ctx.tx.credits.hasSource(subject.ref, source)) return;
    account.grant({
      amount,
      expiresAt: line.periodEnd,
      source,
      reason: `the ${tier} tier's credits for the period`, // its end is the grant's expiry
    });
  });
}
