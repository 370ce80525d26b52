// A subscription's next invoice before it is made, for the pages that show it (the portal and the
// dashboard): the prorations still pending and the coming period at the price × quantity it will
// have then (a schedule's next phase, when one changes it at the period's end, as Stripe's upcoming
// invoice does), with the subscription's discount and tax, through the computation its invoice will
// go through (charge.ts; invoicing.ts bills the same lines); and what a period of another price
// would come to. None is coming for a subscription that has ended, is paused, or is set to end
// within its period.
import type Stripe from 'stripe';
import { pendingFor } from './invoicing.ts';
import {
  billable,
  chargeOf,
  itemAmount,
  type Adjustments,
  type Charge,
  type LineCharge,
} from './objects/charge.ts';
import { adjustmentsOf } from './objects/offers.ts';
import { itemOf, scheduledEnd } from './objects/subscriptions.ts';
import { pendingChangeOf } from './schedule-lifecycle.ts';
import type { Documents } from './store.ts';
import { ENDED } from './subscription-lifecycle.ts';

export interface NextCharge {
  /** When it is invoiced (the trial's end, else the period's); null when no invoice is coming. */
  at: number | null;
  /** The whole invoice: pending prorations, then the period. */
  invoice: Charge;
  /** The current period's line alone: what a period of the item as it is now costs. */
  period: LineCharge;
  adjustments: Adjustments;
}

function invoicedAt(subscription: Stripe.Subscription): number | null {
  const periodEnd = itemOf(subscription).current_period_end;
  const end = scheduledEnd(subscription);
  if (ENDED.includes(subscription.status) || subscription.status === 'paused') return null;
  if (end !== null && end <= periodEnd) return null;
  return subscription.status === 'trialing' ? subscription.trial_end : periodEnd;
}

/** What a period of `price` × `quantity` comes to with `adjustments`: a plan the portal offers. */
export const periodCharge = (
  price: Stripe.Price,
  quantity: number,
  adjustments: Adjustments,
): LineCharge => chargeOf([billable(itemAmount(price, quantity))], adjustments).lines[0]!;

export async function nextCharge(
  docs: Documents,
  subscription: Stripe.Subscription,
): Promise<NextCharge> {
  const { price, quantity = 1 } = itemOf(subscription);
  const pending = await pendingFor(docs, subscription);
  const adjustments = await adjustmentsOf(docs, subscription);
  // The renewal bills the item as the period's end leaves it.
  const renewal = (await pendingChangeOf(docs, subscription)) ?? { price, quantity };
  const invoice = chargeOf(
    [
      ...pending.parts.map((part) => billable(part.amount, part)),
      billable(itemAmount(renewal.price, renewal.quantity)),
    ],
    adjustments,
  );
  const period = periodCharge(price, quantity, adjustments);
  return { at: invoicedAt(subscription), invoice, period, adjustments };
}
