// What a click did, in the words a person uses ("Renewed until ...", "will be canceled on ..."),
// for the dashboard's and the portal's notices, rather than internal action names and statuses;
// a click the API's rules refuse gets the refusal's message.
import type Stripe from 'stripe';
import { eventsReport } from '../api/controls.ts';
import type { Outcome, SimContext } from '../context.ts';
import { StripeApiError } from '../errors.ts';
import type { Changed } from '../subscription-lifecycle.ts';
import { itemOf, scheduledEnd } from '../objects/subscriptions.ts';
import type { Adjustments } from '../objects/charge.ts';
import { planAt } from './charge-words.ts';
import { dateOf, money } from './layout.ts';

/** How long a click waits for its webhooks, so that the notice can say whether they arrived. */
const CLICK_WAIT_MS = 5_000;

/** What `work` says happened, or the message of the API error that refused it. */
export async function noticeOf(work: () => Promise<string>): Promise<string> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof StripeApiError)) throw error;
    return error.message;
  }
}

/** The plan in the words of the button that offered it (charge-words.ts). */
const planWithPrice = (subscription: Stripe.Subscription, adjustments: Adjustments): string => {
  const { price, quantity = 1 } = itemOf(subscription);
  return planAt(price, quantity, adjustments);
};

/**
 * One sentence for the change `action` made; `action` is a key of SUBSCRIPTION_ACTIONS or `switch`;
 * `adjustments` are the subscription's discount and tax, for the plan's price.
 */
export function describeChange(
  action: string,
  { subscription, invoice }: Changed,
  adjustments: Adjustments,
): string {
  const planOf = (s: Stripe.Subscription) => planWithPrice(s, adjustments);
  const periodEnd = dateOf(itemOf(subscription).current_period_end);
  switch (action) {
    case 'renew':
      if (subscription.status === 'canceled')
        return 'The period ended and the subscription is now canceled.';
      return `Payment of ${money(invoice?.amount_paid ?? 0, invoice?.currency ?? null)} succeeded: the subscription is active until ${periodEnd}.`;
    case 'fail-renewal':
      if (subscription.status === 'paused')
        return `The renewal payment of ${money(invoice?.amount_due ?? 0, invoice?.currency ?? null)} failed: the subscription is paused, as the account is set to; paying the open invoice resumes it.`;
      return `The renewal payment of ${money(invoice?.amount_due ?? 0, invoice?.currency ?? null)} failed: the subscription is past due. The provider retries the payment; what the customer keeps meanwhile is the app's choice (often the paid tier, for a grace period).`;
    case 'cancel-at-period-end':
    case 'schedule-cancel':
      return `The subscription will be canceled at the end of the period, on ${dateOf(scheduledEnd(subscription) ?? itemOf(subscription).current_period_end)}.`;
    case 'end-trial':
    case 'end-trial-with-card':
      return trialEnded(subscription, invoice);
    case 'keep-plan':
      return `The scheduled change is withdrawn: the subscription stays on ${planOf(subscription)}.`;
    case 'resume-at-period-end':
      return `The cancellation was withdrawn: the subscription renews as usual on ${periodEnd}.`;
    case 'cancel-now':
      return 'The subscription is canceled, as of now.';
    case 'pause':
      return 'The subscription is paused: no invoices and no new periods until it is resumed.';
    case 'resume':
      return `The subscription is active again, billed from now until ${periodEnd}.`;
    case 'switch':
      if (invoice === null && subscription.status === 'trialing')
        return `Switched to ${planOf(subscription)}; nothing is invoiced during the trial.`;
      if (invoice === null)
        return `Switched to ${planOf(subscription)}; the prorated difference is on the next invoice.`;
      return `Switched to ${planOf(subscription)}; the prorated ${invoice && invoice.total < 0 ? 'credit' : 'difference'} of ${money(Math.abs(invoice?.total ?? 0), invoice?.currency ?? null)} was invoiced.`;
    default:
      return `Done: the subscription is ${subscription.status}.`;
  }
}

/** A switch the portal scheduled for the period's end. */
export function describeScheduled(
  subscription: Stripe.Subscription,
  { price, at }: { price: Stripe.Price; at: number },
  adjustments: Adjustments,
): string {
  const { quantity = 1 } = itemOf(subscription);
  return `Your plan changes to ${planAt(price, quantity, adjustments)} on ${dateOf(at)}; until then it stays ${planWithPrice(subscription, adjustments)}.`;
}

function trialEnded(subscription: Stripe.Subscription, invoice: Stripe.Invoice | null): string {
  switch (subscription.status) {
    case 'active':
      return `The trial ended and the first payment of ${money(invoice?.amount_paid ?? 0, invoice?.currency ?? null)} succeeded: the subscription is active until ${dateOf(itemOf(subscription).current_period_end)}.`;
    case 'canceled':
      return 'The trial ended without a payment method: the subscription is canceled, as its trial settings say.';
    case 'paused':
      return 'The trial ended without a payment method: the subscription is paused until one is added.';
    default:
      return `The trial ended without a payment method: the invoice of ${money(invoice?.amount_due ?? 0, invoice?.currency ?? null)} is unpaid and the subscription is ${subscription.status.replace('_', ' ')}.`;
  }
}

/**
 * "Events sent: a (delivered), b (not delivered yet)." or that nothing was sent, once the events
 * of `outcome` were delivered or the click waited long enough.
 */
export async function describeEvents(ctx: SimContext, outcome: Outcome<unknown>): Promise<string> {
  const events = await eventsReport(ctx, outcome, CLICK_WAIT_MS);
  if (events.length === 0) return 'Nothing changed, so no event was sent.';
  return `Events sent: ${events.map((e) => `${e.type} (${e.delivered ? 'delivered' : 'not delivered yet'})`).join(', ')}.`;
}
