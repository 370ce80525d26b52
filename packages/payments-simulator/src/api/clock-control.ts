// POST /_sim/customers/:id/advance with `to` (Unix seconds): moves the customer's clock ahead
// within its subscriptions' current periods, as advancing a Stripe test clock's frozen_time does,
// so that a change made then is prorated mid-period, as it would be days after a checkout. It goes
// no further than the nearest boundary (a period's end, a trial's end, a scheduled cancellation):
// what happens there bills or ends something, and has its own control (renew, end-trial, ...).
import type Stripe from 'stripe';
import { useCustomerClock, nowSeconds } from '../clock.ts';
import type { SimContext } from '../context.ts';
import { invalidParam } from '../errors.ts';
import { itemOf, scheduledEnd } from '../objects/subscriptions.ts';
import { Documents } from '../store.ts';

const LIVE = ['active', 'trialing', 'past_due', 'unpaid', 'incomplete', 'paused'];

/** The first boundary any live subscription of the customer reaches, or null with none. */
async function nextBoundary(docs: Documents, customer: string): Promise<number | null> {
  const { data } = await docs.list<Stripe.Subscription>(
    'subscription',
    { customer, status: LIVE },
    { limit: 100 },
  );
  const ends = data.flatMap(({ data: s }) => [
    itemOf(s).current_period_end,
    ...(s.trial_end === null ? [] : [s.trial_end]),
    ...(scheduledEnd(s) === null ? [] : [scheduledEnd(s)!]),
  ]);
  return ends.length === 0 ? null : Math.min(...ends);
}

/** The customer's clock moved to `to`; answers the customer's time before and after. */
export async function advanceCustomerClock(ctx: SimContext, customer: string, to: unknown) {
  const at = Number(to);
  if (!Number.isInteger(at)) throw invalidParam('`to` must be a time in Unix seconds.', 'to');
  useCustomerClock(customer);
  const before = nowSeconds();
  return ctx.db.transaction(async (tx) => {
    const docs = new Documents(tx);
    await docs.require('customer', customer);
    const boundary = await nextBoundary(docs, customer);
    if (at <= before)
      throw invalidParam(
        `The customer's clock is at ${before} already; it only moves ahead.`,
        'to',
      );
    if (boundary !== null && at >= boundary)
      throw invalidParam(
        `A subscription of this customer reaches a boundary at ${boundary} (a period's or a trial's end, or a cancellation): advance to before it, then renew or end it with its own control.`,
        'to',
      );
    await ctx.clock.advanceTo(docs, customer, at);
    return { customer, before, now: at };
  });
}
