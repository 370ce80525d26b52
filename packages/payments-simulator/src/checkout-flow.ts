// What happens to a checkout session after it is created: paid on the hosted page (customer,
// subscription, paid invoice, then checkout.session.completed, customer.subscription.created and
// invoice.paid, in that order), or expired (by the API, or lazily once expires_at has passed).
// A session with a trial starts a trialing subscription with a $0 invoice, and collects no card
// when payment_method_collection=if_required; a redeemed code becomes the subscription's discount;
// automatic tax is on the subscription and its invoices.
import type Stripe from 'stripe';
import { mutate, type Outcome, type SimContext, type Unit } from './context.ts';
import { invalidParam } from './errors.ts';
import { AUTOMATIC, previousAttributes, type Trigger } from './events.ts';
import { hasTrial, type SessionExtra } from './objects/checkout.ts';
import { buildCustomer, takeInvoiceNumber } from './objects/customers.ts';
import { buildInvoice, trialLines } from './objects/invoices.ts';
import {
  buildDiscount,
  percentOff,
  redeem,
  SIMULATED_ADDRESS,
  SIMULATED_TAX,
  type Adjustments,
} from './objects/offers.ts';
import { buildSubscription } from './objects/subscriptions.ts';
import type { Stored } from './store.ts';
import { addMonth, nowSeconds } from './time.ts';

const DAY = 86_400;
/** Stripe sends trial_will_end three days before a trial ends, or at once when fewer remain. */
export const TRIAL_NOTICE_SECONDS = 3 * DAY;

type Session = Stripe.Checkout.Session;

export type PayResult =
  | { paid: true; session: Session; subscription: Stripe.Subscription; invoice: Stripe.Invoice }
  | { paid: false; session: Session };

async function expireLocked(unit: Unit, session: Session): Promise<Session> {
  const expired: Session = { ...session, status: 'expired', url: null };
  await unit.docs.save('checkout.session', expired);
  await unit.emit('checkout.session.expired', expired);
  return expired;
}

/** POST /v1/checkout/sessions/:id/expire: only an open session can be expired. */
export function expireSession(
  ctx: SimContext,
  id: string,
  trigger: Trigger,
): Promise<Outcome<Session>> {
  return mutate(ctx, trigger, async (unit) => {
    const { data } = await unit.docs.require<Session>('checkout.session', id, { lock: true });
    if (data.status !== 'open')
      throw invalidParam(
        `Only Checkout Sessions with a status of \`open\` can be expired. This session has status \`${data.status}\`.`,
      );
    return expireLocked(unit, data);
  });
}

/** Reads a session, expiring it first if its time ran out while nobody looked. */
export async function currentSession(ctx: SimContext, id: string): Promise<Stored<Session> | null> {
  const stored = await ctx.docs.get<Session>('checkout.session', id);
  if (stored === null || stored.data.status !== 'open' || stored.data.expires_at > nowSeconds())
    return stored;
  const outcome = await mutate(ctx, AUTOMATIC, async (unit) => {
    const { data } = await unit.docs.require<Session>('checkout.session', id, { lock: true });
    return data.status === 'open' ? expireLocked(unit, data) : data;
  });
  return { data: outcome.value, extra: stored.extra };
}

function customerDetails(customer: Stripe.Customer): Stripe.Checkout.Session.CustomerDetails {
  return {
    address: customer.address ?? null,
    business_name: null,
    email: customer.email,
    individual_name: null,
    name: customer.name ?? null,
    phone: null,
    tax_exempt: 'none',
    tax_ids: [],
  };
}

/**
 * The Pay button. Paying twice (two tabs, a double click) pays once: the session row is locked.
 * `email` is what the person typed when the session named neither customer nor customer_email.
 */
export function payCheckout(
  ctx: SimContext,
  id: string,
  email?: string,
): Promise<Outcome<PayResult>> {
  return mutate(ctx, AUTOMATIC, async (unit): Promise<PayResult> => {
    const { docs, emit } = unit;
    const stored = await docs.require<Session>('checkout.session', id, { lock: true });
    if (stored.data.status !== 'open') return { paid: false, session: stored.data };
    const at = nowSeconds();
    if (stored.data.expires_at <= at)
      return { paid: false, session: await expireLocked(unit, stored.data) };

    const extra = stored.extra as unknown as SessionExtra;
    const {
      line_items: [line],
      subscription_data,
    } = extra;
    if (line === undefined) throw new Error(`checkout session ${id} has no line item`);
    const price = (await docs.require<Stripe.Price>('price', line.price)).data;
    const existing =
      stored.data.customer === null
        ? null
        : await docs.require<Stripe.Customer>('customer', stored.data.customer as string, {
            lock: true,
          });
    const taxed = stored.data.automatic_tax.enabled;
    const taken = takeInvoiceNumber(
      existing?.data ?? buildCustomer({ email: stored.data.customer_email ?? email }),
    );
    // Automatic tax needs the billing address Checkout collects: saved on a new customer, and on
    // an existing one when customer_update[address]=auto lets Checkout write it.
    const customer: Stripe.Customer =
      taxed &&
      taken.customer.address == null &&
      (existing === null || extra.customer_update?.address === 'auto')
        ? { ...taken.customer, address: SIMULATED_ADDRESS }
        : taken.customer;
    await docs.save('customer', customer);

    const trialEnd = hasTrial(subscription_data)
      ? (subscription_data.trial_end ?? at + subscription_data.trial_period_days! * DAY)
      : null;
    // if_required: no card when nothing is due today (a trial, or a code taking it all).
    const collectsCard = !(
      stored.data.payment_method_collection === 'if_required' && stored.data.amount_total === 0
    );
    const [sessionDiscount] = stored.data.discounts ?? [];
    const built = buildSubscription({
      customer: customer.id,
      price,
      quantity: line.quantity,
      metadata: subscription_data.metadata,
      description: subscription_data.description,
      start: at,
      periodEnd: trialEnd ?? addMonth(at),
      trialEnd,
      missingPaymentMethod: subscription_data.missing_payment_method ?? undefined,
      paymentMethod: collectsCard ? undefined : null,
      automaticTax: taxed,
    });
    const discount =
      sessionDiscount === undefined
        ? null
        : buildDiscount({
            coupon: String(sessionDiscount.coupon),
            promotionCode:
              sessionDiscount.promotion_code === null
                ? null
                : String(sessionDiscount.promotion_code),
            customer: customer.id,
            subscription: built.id,
            checkoutSession: id,
            start: at,
          });
    const adjustments: Adjustments = {
      discount:
        discount === null
          ? null
          : { id: discount.id, percentOff: await percentOff(docs, String(discount.source.coupon)) },
      taxPercent: taxed ? SIMULATED_TAX.percent : null,
    };
    const invoice = buildInvoice({
      subscription: built,
      customer,
      reason: 'subscription_create',
      paid: true,
      at,
      number: taken.number,
      adjustments,
      ...(trialEnd !== null && { lines: trialLines(built, price, { start: at, end: trialEnd }) }),
    });
    const subscription: Stripe.Subscription = {
      ...built,
      discounts: discount === null ? [] : [discount.id],
      latest_invoice: invoice.id,
    };
    const session: Session = {
      ...stored.data,
      status: 'complete',
      payment_status: stored.data.amount_total === 0 ? 'no_payment_required' : 'paid',
      automatic_tax: taxed
        ? { ...stored.data.automatic_tax, status: 'complete' }
        : stored.data.automatic_tax,
      customer: customer.id,
      customer_details: customerDetails(customer),
      subscription: subscription.id,
      invoice: invoice.id,
      url: null,
    };
    if (discount !== null) {
      await docs.save('discount', discount);
      await redeem(docs, discount);
    }
    await docs.save('subscription', subscription);
    await docs.save('invoice', invoice);
    await docs.save('checkout.session', session);
    const changed = existing === null ? undefined : previousAttributes(existing.data, customer);
    if (changed !== undefined && 'address' in changed)
      await emit('customer.updated', customer, { address: changed.address });
    await emit('checkout.session.completed', session);
    await emit('customer.subscription.created', subscription);
    await emit('invoice.paid', invoice);
    if (trialEnd !== null && trialEnd - at <= TRIAL_NOTICE_SECONDS)
      await emit('customer.subscription.trial_will_end', subscription);
    return { paid: true, session, subscription, invoice };
  });
}
